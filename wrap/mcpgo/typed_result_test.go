package mcpgo_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestTypedResultThatBreaksItsSchemaIsTheServersFault: a typed handler
// whose result breaks its own output type's rules gets an internal error,
// not a bad-argument one (the model did nothing wrong), and the log line
// says which rule.
func TestTypedResultThatBreaksItsSchemaIsTheServersFault(t *testing.T) {
	type code struct {
		Code string `json:"code" validate:"max=3"`
	}
	var logs logbuf.Buffer
	w := wrap.New(wrap.WithLogger(logs.Logger()))
	s := server.NewMCPServer("codes", "1.0.0")
	mcpgo.Attach(s, w)
	s.AddTools(mcpgo.Typed(w, mcp.NewTool("code"), func(context.Context, mcp.CallToolRequest, struct{}) (code, error) {
		return code{Code: "too long"}, nil
	}))
	res := testserver.StartHTTP(t, s).CallRaw(t, "code", `{}`)
	info, ok := mcpgo.InfoOf(res)
	if !res.IsError || !ok || info.Code != "internal" || strings.Contains(text(res), "too long") {
		t.Fatalf("isError %v, info %+v, text %q", res.IsError, info, text(res))
	}
	lines, _ := logs.Find("tool", "code")
	if len(lines) != 1 || !strings.Contains(fmt.Sprint(lines[0]["cause"]), `breaks its own schema: parameter "code" must be at most 3`) {
		t.Fatalf("log lines %v", lines)
	}
}
