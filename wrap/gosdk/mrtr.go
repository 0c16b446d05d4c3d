package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk/internal/content"
)

// rounds is go-sdk's part in multi round-trip calls (content.Rounds), on
// the toolCall's own request.
var rounds call.Rounds = content.Rounds{
	Request:    func(r *call.Request) *mcp.CallToolRequest { return r.SDK.(*toolCall).m },
	SetRequest: func(r *call.Request, m *mcp.CallToolRequest) { r.SDK.(*toolCall).m = m },
}

// progressed is the sending middleware that tells the chain of a call
// that its handler reported progress (req.Session.NotifyProgress with the
// call's context): wrap.WithProgressTimeout's idle clock starts again.
func progressed(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "notifications/progress" {
			call.Progressed(ctx)
		}
		return next(ctx, method, req)
	}
}
