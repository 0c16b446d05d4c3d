package errmap_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
)

func TestToJSONRPC(t *testing.T) {
	notFound := errs.New(errs.NotFound, "no note for 1999-01-01")
	for _, c := range []struct {
		name string
		err  error
		req  errmap.Request
		code int
		msg  string
		data string // a fragment of the data member's JSON
	}{
		{"resource not found", notFound, errmap.Request{URI: "note://a", CallID: "c1"}, mcp.RESOURCE_NOT_FOUND,
			"no note for 1999-01-01", `"uri":"note://a"`},
		{"resource not found, 2026-07-28", notFound, errmap.Request{URI: "note://a", Modern: true}, mcp.INVALID_PARAMS,
			"no note for 1999-01-01", `"code":"not_found"`},
		{"prompt not found", notFound, errmap.Request{Prompt: "p"}, mcp.INVALID_PARAMS, "no note for 1999-01-01", `"prompt":"p"`},
		{"invalid argument", errs.New(errs.InvalidArgument, "", errs.Violations(errs.Violation{Parameter: "topic", Rule: "required", Message: `parameter "topic" is required`})),
			errmap.Request{Prompt: "summary"}, mcp.INVALID_PARAMS, `invalid arguments for prompt "summary": parameter "topic" is required`, `"parameter":"topic"`},
		{"internal, masked", errors.New("dial postgres://u:pw@db: refused"), errmap.Request{URI: "note://a", CallID: "c9"}, mcp.INTERNAL_ERROR,
			`internal error in resource "note://a" (call id c9); the details are in the server log`, `"callId":"c9"`},
		{"nil", nil, errmap.Request{Prompt: "p", CallID: "c2"}, mcp.INTERNAL_ERROR, `internal error in prompt "p" (call id c2); the details are in the server log`, `"code":"internal"`},
		{"rate limited keeps its wait", errs.New(errs.RateLimited, "quota", errs.RetryAfter(3*time.Second)), errmap.Request{URI: "note://a"},
			mcp.INTERNAL_ERROR, "quota; retry after 3s", `"retryAfterSeconds":3`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := errmap.ToJSONRPC(c.err, c.req)
			if e.Code != c.code || e.Message != c.msg || e.Error() != e.Message {
				t.Errorf("got %d %q, want %d %q", e.Code, e.Message, c.code, c.msg)
			}
			raw, err := json.Marshal(e.Data)
			if err != nil || !strings.Contains(string(raw), c.data) {
				t.Errorf("data %s lacks %s (%v)", raw, c.data, err)
			}
			if strings.Contains(e.Message+string(raw), "pw@") {
				t.Errorf("the cause leaked: %q %s", e.Message, raw)
			}
			if c.err != nil && errs.CodeOf(e) != errs.CodeOf(c.err) {
				t.Errorf("CodeOf(RPCError) = %v, want %v", errs.CodeOf(e), errs.CodeOf(c.err))
			}
		})
	}
}

// TestToJSONRPCBounded: a huge URI or message cannot make a huge error.
func TestToJSONRPCBounded(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	e := errmap.ToJSONRPC(errs.New(errs.NotFound, big), errmap.Request{URI: "note://" + big})
	raw, _ := json.Marshal(e.Data)
	if n := len(raw) + len(e.Message); n > errmap.MaxResultBytes {
		t.Fatalf("error is %d bytes", n)
	}
}
