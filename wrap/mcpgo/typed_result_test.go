package mcpgo_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
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
	var logs logbuf.Buffer
	w := wrap.New(wrap.WithLogger(logs.Logger()))
	s := server.NewMCPServer("codes", "1.0.0")
	mcpgo.Attach(s, w)
	s.AddTools(mcpgo.Typed(w, mcp.NewTool("code"), func(context.Context, mcp.CallToolRequest, struct{}) (adaptercases.SchemaBreakCode, error) {
		return adaptercases.SchemaBreakCode{Code: "too long"}, nil
	}))
	res := testserver.StartHTTP(t, s).CallRaw(t, "code", `{}`)
	if info, ok := mcpgo.InfoOf(res); !ok || info.Code != "internal" {
		t.Fatalf("structuredContent.error %+v (%v)", info, ok)
	}
	lines, _ := logs.Find("tool", "code")
	adaptercases.CheckSchemaBreak(t, res.IsError, text(res), lines)
}
