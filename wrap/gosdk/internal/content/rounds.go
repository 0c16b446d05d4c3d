package content

import (
	"context"
	"encoding/json"
	"maps"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/result"
)

// Tool is a go-sdk tool result seen by the chain.
type Tool = result.Of[mcp.CallToolResult, mcp.Content, Kit]

// ModernProtocol is the first protocol version whose resource errors and
// multi round-trip calls are the 2026-07-28 ones.
const ModernProtocol = "2026-07-28"

// Rounds is go-sdk's part in multi round-trip calls (call.Rounds): the
// round's requestState and inputResponses are in the tools/call params.
// go-sdk's own bridge for clients before 2026-07-28 runs inside the
// middleware (it is added by mcp.NewServer, before Attach's), so such a
// client's rounds reach the chain as one call; a 2026-07-28 client's
// rounds reach it each as a tools/call.
type Rounds struct {
	// Request is the tools/call a request of the chain carries;
	// SetRequest replaces it (go-sdk's is shared: Resume copies it).
	Request    func(*call.Request) *mcp.CallToolRequest
	SetRequest func(*call.Request, *mcp.CallToolRequest)
}

// Modern is go-sdk's test of a client that takes input_required results
// (clientSupportsMultiRoundTrip): a session without initialize params is
// a stateless one, which go-sdk serves at its latest version.
func (x Rounds) Modern(_ context.Context, r *call.Request) bool {
	ss := x.Request(r).Session
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	return ip == nil || ip.ProtocolVersion >= ModernProtocol
}

// State is call.Rounds.State.
func (x Rounds) State(r *call.Request) string {
	if p := x.Request(r).Params; p != nil {
		return p.RequestState
	}
	return ""
}

// Resume gives the handler a copy of the request: go-sdk's is shared.
func (x Rounds) Resume(r *call.Request, state, key string) {
	old := x.Request(r)
	p := *old.Params
	p.RequestState = state
	if _, ok := p.InputResponses[key]; ok {
		in := maps.Clone(p.InputResponses)
		delete(in, key)
		if len(in) == 0 {
			in = nil
		}
		p.InputResponses = in
	}
	m := *old
	m.Params = &p
	x.SetRequest(r, &m)
}

// Reply is call.Rounds.Reply.
func (x Rounds) Reply(r *call.Request, key string) call.Reply {
	res, ok := x.Request(r).Params.InputResponses[key].(*mcp.ElicitResult)
	if !ok || res == nil {
		return call.Unsupported
	}
	return Reply(res)
}

// Reply is the user's answer to the chain's confirmation form.
func Reply(res *mcp.ElicitResult) call.Reply {
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

// Ask is call.Rounds.Ask.
func (Rounds) Ask(_ *call.Request, key, message, state string) call.Result {
	res := InputRequired()
	res.InputRequests = mcp.InputRequestMap{key: &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: call.ConfirmSchema}}
	res.RequestState = state
	return Tool{R: res}
}

// ResultState is call.Rounds.ResultState.
func (Rounds) ResultState(res call.Result) string { return res.(Tool).R.RequestState }

// Restate copies the result whole: its result type is unexported.
func (Rounds) Restate(res call.Result, state string) call.Result {
	cp := *res.(Tool).R
	cp.RequestState = state
	return Tool{R: &cp}
}

// InputRequired returns an empty CallToolResult whose result type is
// input_required. go-sdk sets that type only on a tool handler's result
// (the field is unexported), and the chain answers a confirmation's
// question before any handler runs; its JSON decoding sets the field,
// which is the one way to it from outside (go-sdk v1.8.0;
// TestGoSDKInputRequiredResultKeepsItsType fails if an upgrade changes
// that).
func InputRequired() *mcp.CallToolResult {
	var res mcp.CallToolResult
	_ = json.Unmarshal([]byte(`{"content":[],"resultType":"input_required"}`), &res) // constant: never fails
	res.Content = nil
	return &res
}
