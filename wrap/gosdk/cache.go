package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// sending is the sending middleware that tells w's chain what go-sdk
// sends:
//   - notifications/progress of a call (req.Session.NotifyProgress with the
//     call's context): wrap.WithProgressTimeout's idle clock starts again;
//   - notifications/tools/list_changed (resources/list_changed), which
//     go-sdk sends every session after AddTool, RemoveTools, AddResource and
//     the rest (it has no hook for them): the answers w's call cache
//     (wrap.WithCache) keeps for tools (resources) are dropped. With no
//     session connected it sends nothing, and the kept answers live out
//     their TTL (or wrap.Wrapper.Forget drops them). It reads whether w
//     keeps answers when a notification passes: a cache given in a tool's
//     registration options (Tool) may come after Attach.
func sending(w *wrap.Wrapper) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "notifications/progress":
				call.Progressed(ctx)
			case "notifications/tools/list_changed", "notifications/resources/list_changed":
				if w != nil && adapter.Keeps(w) { // a nil w is wrap.New(): it keeps nothing
					kind := call.Tool
					if method == "notifications/resources/list_changed" {
						kind = call.Resource
					}
					adapter.Changed(w, kind)
				}
			}
			return next(ctx, method, req)
		}
	}
}
