package mcpgo_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestOrderTrickFields: the chain is moved in front of middleware the
// server registered before it, through mcp-go's unexported middleware
// lists. It fails when an mcp-go upgrade renames or retypes them (the
// server's own middleware's plain error then reaches the client as -32603).
func TestOrderTrickFields(t *testing.T) {
	refuse := func(server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("quota exhausted for this session")
		}
	}
	s := server.NewMCPServer("t", "1", server.WithToolHandlerMiddleware(refuse))
	mcpgo.Attach(s, wrap.New())
	s.AddTool(mcp.NewTool("q"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	conn := testserver.StartHTTP(t, s)
	res := conn.CallRaw(t, "q", `{}`)
	if !res.IsError || len(res.Content) != 1 || !strings.HasPrefix(res.Content[0].(mcp.TextContent).Text, "quota exhausted for this session (call id ") {
		t.Fatalf("the server's own middleware ran outside the chain: %+v", res)
	}
}
