package validate_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/binding"
	"github.com/mcpwrap/mcpwrap/validate"
)

type reviewArgs struct {
	Code     string `json:"code" validate:"required" description:"The code to review"`
	Language string `json:"language" validate:"omitempty,oneof=go rust" description:"go or rust"`
	Token    string `json:"token" mcpwrap:"secret" validate:"omitempty,len=8"`
}

func TestPromptArguments(t *testing.T) {
	b := validate.MustNew[reviewArgs]()
	params := binding.PromptArguments(b)
	want := []binding.PromptArgument{
		{Name: "code", Description: "The code to review", Required: true},
		{Name: "language", Description: "go or rust"},
		{Name: "token"},
	}
	if !slices.Equal(params, want) {
		t.Fatalf("arguments = %+v, want %+v", params, want)
	}

	req := mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "review",
		Arguments: map[string]string{"language": "cobol", "token": "hunter2hunter2", "lang": "go"}}}
	_, err := b.Bind(req.Params.Arguments)
	var e *errs.Error
	if !errors.As(err, &e) || e.Code() != errs.InvalidArgument {
		t.Fatalf("err = %v, want InvalidArgument", err)
	}
	got := map[string]string{}
	for _, v := range e.Violations() {
		got[v.Parameter] = v.Message
		if v.Parameter == "token" && (v.Got != "" || slices.Contains([]string{v.Message}, "hunter2hunter2")) {
			t.Errorf("the secret argument was echoed: %+v", v)
		}
	}
	for _, p := range []string{"code", "language", "token", "lang"} {
		if got[p] == "" {
			t.Errorf("no violation for %q: %v", p, got)
		}
	}

	req.Params.Arguments = map[string]string{"code": "x := 1", "language": "go"}
	args, err := b.Bind(req.Params.Arguments)
	if err != nil || args.Code != "x := 1" || args.Language != "go" {
		t.Fatalf("Bind = %+v, %v", args, err)
	}
}
