package testserver

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// ServeLimitedSearch serves, over mcp-go's stateless streamable HTTP on
// loopback until the test ends, a server whose one tool, "search", answers
// "found", behind the rate limiter lim; it returns the server's URL.
func ServeLimitedSearch(tb testing.TB, lim wrap.Limiter) string {
	tb.Helper()
	s := server.NewMCPServer("search", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLimit(lim)))
	s.AddTool(mcp.NewTool("search"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("found"), nil
	})
	srv := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithStateLess(true)))
	tb.Cleanup(srv.Close)
	return srv.URL
}
