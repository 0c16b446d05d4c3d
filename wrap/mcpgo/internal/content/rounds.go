package content

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/result"
)

// Tool is an mcp-go tool result seen by the chain.
type Tool = result.Of[mcp.CallToolResult, mcp.Content, Kit]

// DecodeTool is call.Request.Decode for a tool's result.
func DecodeTool(data []byte) (call.Result, error) {
	raw := json.RawMessage(data)
	r, err := mcp.ParseCallToolResult(&raw)
	if err != nil {
		return nil, err
	}
	return Tool{R: r}, nil
}

// Rounds is mcp-go's part in multi round-trip calls (call.Rounds): the
// round's requestState and inputResponses are in the tools/call params
// (mcp.MultiRoundTripParams), an input_required result is
// server.NewInputRequestBuilder's. mcp-go runs the middleware, so the
// chain, for every round: a client's round, and each round its bridge
// makes for a client before 2026-07-28.
type Rounds struct {
	// Request is the tools/call a request of the chain carries: the
	// adapter's own copy, which Resume changes.
	Request func(*call.Request) *mcp.CallToolRequest
}

// Modern is call.Rounds.Modern.
func (Rounds) Modern(_ context.Context, r *call.Request) bool {
	return mcp.IsModernProtocol(r.Protocol)
}

// State is call.Rounds.State.
func (x Rounds) State(r *call.Request) string { return x.Request(r).Params.RequestState }

// Resume is call.Rounds.Resume.
func (x Rounds) Resume(r *call.Request, state, key string) {
	p := &x.Request(r).Params
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

// Reply is call.Rounds.Reply.
func (x Rounds) Reply(r *call.Request, key string) call.Reply {
	res := server.ElicitationResponse(x.Request(r).Params.InputResponses, key)
	if res == nil {
		return call.Unsupported
	}
	return Reply(res.Action, res.Content)
}

// Reply is the user's answer to the chain's confirmation form.
func Reply(action mcp.ElicitationResponseAction, content any) call.Reply {
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

// Ask is call.Rounds.Ask.
func (Rounds) Ask(_ *call.Request, key, message, state string) call.Result {
	return Tool{R: server.NewInputRequestBuilder(state).
		Elicit(key, mcp.ElicitationParams{Message: message, RequestedSchema: call.ConfirmSchema}).ToolResult()}
}

// ResultState is call.Rounds.ResultState.
func (Rounds) ResultState(res call.Result) string { return res.(Tool).R.RequestState }

// Restate is call.Rounds.Restate.
func (Rounds) Restate(res call.Result, state string) call.Result {
	cp := *res.(Tool).R
	cp.RequestState = state
	return Tool{R: &cp}
}
