package gosdk

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
)

// rounds is go-sdk's part in multi round-trip calls (call.Rounds): the
// round's requestState and inputResponses are in the tools/call params.
// go-sdk's own bridge for clients before 2026-07-28 runs inside the
// middleware (it is added by mcp.NewServer, before Attach's), so such a
// client's rounds reach the chain as one call; a 2026-07-28 client's
// rounds reach it each as a tools/call.
type rounds struct{}

// Modern is go-sdk's test of a client that takes input_required results
// (clientSupportsMultiRoundTrip): a session without initialize params is
// a stateless one, which go-sdk serves at its latest version.
func (rounds) Modern(_ context.Context, r *call.Request) bool {
	ss := r.SDK.(*toolCall).m.Session
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	return ip == nil || ip.ProtocolVersion >= modernProtocol
}

func (rounds) State(r *call.Request) string {
	if p := r.SDK.(*toolCall).m.Params; p != nil {
		return p.RequestState
	}
	return ""
}

// Resume gives the handler a copy of the request: go-sdk's is shared.
func (rounds) Resume(r *call.Request, state, key string) {
	tc := r.SDK.(*toolCall)
	p := *tc.m.Params
	p.RequestState = state
	if _, ok := p.InputResponses[key]; ok {
		in := maps.Clone(p.InputResponses)
		delete(in, key)
		if len(in) == 0 {
			in = nil
		}
		p.InputResponses = in
	}
	m := *tc.m
	m.Params = &p
	tc.m = &m
}

func (rounds) Reply(r *call.Request, key string) call.Reply {
	res, ok := r.SDK.(*toolCall).m.Params.InputResponses[key].(*mcp.ElicitResult)
	if !ok || res == nil {
		return call.Unsupported
	}
	return reply(res)
}

// reply is the user's answer to the chain's confirmation form.
func reply(res *mcp.ElicitResult) call.Reply {
	switch res.Action {
	case "accept":
		if res.Content["confirm"] == true {
			return call.Accepted
		}
		return call.Declined
	case "decline":
		return call.Declined
	}
	return call.Cancelled
}

func (rounds) Ask(_ *call.Request, key, message, state string) call.Result {
	res := inputRequired()
	res.InputRequests = mcp.InputRequestMap{key: &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: confirmSchema}}
	res.RequestState = state
	return toolResult{R: res}
}

func (rounds) ResultState(res call.Result) string { return res.(toolResult).R.RequestState }

// Restate copies the result whole: its result type is unexported.
func (rounds) Restate(res call.Result, state string) call.Result {
	cp := *res.(toolResult).R
	cp.RequestState = state
	return toolResult{R: &cp}
}

// inputRequired returns an empty CallToolResult whose result type is
// input_required. go-sdk sets that type only on a tool handler's result
// (the field is unexported), and the chain answers a confirmation's
// question before any handler runs; its JSON decoding sets the field,
// which is the one way to it from outside (go-sdk v1.8.0;
// TestGoSDKInputRequiredResultKeepsItsType fails if an upgrade changes
// that).
func inputRequired() *mcp.CallToolResult {
	var res mcp.CallToolResult
	_ = json.Unmarshal([]byte(`{"content":[],"resultType":"input_required"}`), &res) // constant: never fails
	res.Content = nil
	return &res
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
