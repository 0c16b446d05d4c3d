package mcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo/internal/content"
)

// rounds is mcp-go's part in multi round-trip calls (content.Rounds),
// reading the toolCall's own copy of the request.
var rounds call.Rounds = content.Rounds{Request: func(r *call.Request) *mcp.CallToolRequest { return &r.SDK.(*toolCall).m }}

// NotifyProgress sends the client a notifications/progress for the call
// req (when its params._meta carries a progressToken, as MCP requires),
// and tells the chain that the call is still working:
// wrap.WithProgressTimeout starts its idle clock again. Call it from a
// tool handler with the handler's context. mcp-go gives middleware no
// sight of what a handler sends itself (server.SendNotificationToClient),
// so progress sent that way does not restart the clock.
func NotifyProgress(ctx context.Context, req mcp.CallToolRequest, progress, total float64, message string) error {
	call.Progressed(ctx)
	if req.Params.Meta == nil || req.Params.Meta.ProgressToken == nil {
		return nil
	}
	s := server.ServerFromContext(ctx)
	if s == nil {
		return nil
	}
	p := map[string]any{"progressToken": req.Params.Meta.ProgressToken, "progress": progress}
	if total > 0 {
		p["total"] = total
	}
	if message != "" {
		p["message"] = message
	}
	return s.SendNotificationToClient(ctx, "notifications/progress", p)
}
