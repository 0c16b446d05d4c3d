package mcpgo

import (
	"context"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Matcher selects calls for When.
type Matcher func(ctx context.Context, req mcp.CallToolRequest) bool

// When applies mw only to the calls match selects; other calls go straight
// to the next handler. It is how one middleware is limited to some tools.
func When(match Matcher, mw server.ToolHandlerMiddleware) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		wrapped := mw(next)
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if match(ctx, req) {
				return wrapped(ctx, req)
			}
			return next(ctx, req)
		}
	}
}

// ToolNamed matches calls to any of the named tools.
func ToolNamed(names ...string) Matcher {
	names = slices.Clone(names)
	return func(_ context.Context, req mcp.CallToolRequest) bool {
		return slices.Contains(names, req.Params.Name)
	}
}
