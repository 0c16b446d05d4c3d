package mcpgo_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// TestServerOptionsLogEveryRequest: the one-line retrofit with
// ServerOptions gives every tools/call exactly one log line, the ones mcp-go
// answers before any middleware (unknown tool) included; the Middleware alone
// cannot see those.
func TestServerOptionsLogEveryRequest(t *testing.T) {
	var logs logbuf.Buffer
	s := server.NewMCPServer("files", "1.0.0", attached(wrap.New(wrap.WithLogger(logs.Logger()))))
	s.AddTool(mcp.NewTool("echo"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	conn := testserver.StartHTTP(t, s)
	if res, err := conn.Call(t.Context(), "echo", nil); err != nil || res.IsError {
		t.Fatalf("echo: %+v, %v", res, err)
	}
	if _, err := conn.Call(t.Context(), "no_such_tool", nil); err == nil {
		t.Fatal("an unknown tool must stay a JSON-RPC error")
	}
	for tool, outcome := range map[string]string{"echo": "success", "no_such_tool": "protocol_error"} {
		lines, err := logs.Find("tool", tool)
		if err != nil {
			t.Fatal(err)
		}
		if len(lines) != 1 || lines[0]["outcome"] != outcome {
			t.Errorf("tool %s: want one line with outcome %s, got %v", tool, outcome, lines)
		}
	}
}
