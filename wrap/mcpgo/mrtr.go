package mcpgo

import (
	"context"
	"maps"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/call"
)

// rounds is mcp-go's part in multi round-trip calls (call.Rounds): the
// round's requestState and inputResponses are in the tools/call params
// (mcp.MultiRoundTripParams), an input_required result is
// server.NewInputRequestBuilder's. mcp-go runs the middleware, so the
// chain, for every round: a client's round, and each round its bridge
// makes for a client before 2026-07-28.
type rounds struct{}

func (rounds) Modern(_ context.Context, r *call.Request) bool {
	return mcp.IsModernProtocol(r.Protocol)
}

func (rounds) State(r *call.Request) string { return r.SDK.(*toolCall).m.Params.RequestState }

func (rounds) Resume(r *call.Request, state, key string) {
	p := &r.SDK.(*toolCall).m.Params // the toolCall's own copy of the request
	p.RequestState = state
	if _, ok := p.InputResponses[key]; ok {
		in := maps.Clone(p.InputResponses)
		delete(in, key)
		if len(in) == 0 {
			in = nil
		}
		p.InputResponses = in
	}
}

func (rounds) Reply(r *call.Request, key string) call.Reply {
	res := server.ElicitationResponse(r.SDK.(*toolCall).m.Params.InputResponses, key)
	if res == nil {
		return call.Unsupported
	}
	return reply(res.Action, res.Content)
}

// reply is the user's answer to the chain's confirmation form.
func reply(action mcp.ElicitationResponseAction, content any) call.Reply {
	switch action {
	case mcp.ElicitationResponseActionAccept:
		if m, ok := content.(map[string]any); ok && m["confirm"] == true {
			return call.Accepted
		}
		return call.Declined
	case mcp.ElicitationResponseActionDecline:
		return call.Declined
	}
	return call.Cancelled
}

func (rounds) Ask(_ *call.Request, key, message, state string) call.Result {
	return resultOf(server.NewInputRequestBuilder(state).
		Elicit(key, mcp.ElicitationParams{Message: message, RequestedSchema: confirmSchema}).ToolResult())
}

func (rounds) ResultState(res call.Result) string { return res.(toolResult).R.RequestState }

func (rounds) Restate(res call.Result, state string) call.Result {
	cp := *res.(toolResult).R
	cp.RequestState = state
	return toolResult{R: &cp}
}

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
