package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// listsChanged drops the answers w's call cache (wrap.WithCache) keeps for
// tools or resources when go-sdk tells a session that their list changed:
// go-sdk has no hook for AddTool, RemoveTools, AddResource and the rest,
// but sends notifications/tools/list_changed (resources/list_changed)
// through the sending middleware to every session after each. With no
// session connected it sends nothing, and the kept answers live out their
// TTL (or wrap.Wrapper.Forget drops them). It is added whether or not w
// keeps answers at Attach: a cache given in a tool's registration options
// (Tool) may come after.
func listsChanged(w *wrap.Wrapper) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if !adapter.Keeps(w) {
				return next(ctx, method, req)
			}
			switch method {
			case "notifications/tools/list_changed":
				adapter.Changed(w, call.Tool)
			case "notifications/resources/list_changed":
				adapter.Changed(w, call.Resource)
			}
			return next(ctx, method, req)
		}
	}
}
