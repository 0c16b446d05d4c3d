package gosdk

import (
	"context"
	"encoding/json"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/errbase"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk/internal/content"
)

// methodCall is one resources/read or prompts/get on its way through the
// chain: the rest of go-sdk's method handler chain and its request.
type methodCall struct {
	req    call.Request
	method string
	m      mcp.Request
	next   mcp.MethodHandler
}

// serveResource serves resources/read (resources and templates; go-sdk
// looks the URI up behind the middleware, so an unknown URI is answered by
// go-sdk and logged by the chain).
func serveResource(ctx context.Context, serve adapter.Serve, method string, r *mcp.ReadResourceRequest, next mcp.MethodHandler) (mcp.Result, error) {
	mc := &methodCall{method: method, m: r, next: next}
	mc.req = call.Request{Kind: call.Resource, Name: r.Params.URI, SDK: mc}
	fill(ctx, &mc.req, r.Session, r.Extra, r.Params.Meta, r)
	mc.req.Registered, mc.req.Decode = registered, content.DecodeResource
	return requestAnswer(serve(ctx, &mc.req, handleMethod))
}

// servePrompt serves prompts/get.
func servePrompt(ctx context.Context, serve adapter.Serve, method string, r *mcp.GetPromptRequest, next mcp.MethodHandler) (mcp.Result, error) {
	mc := &methodCall{method: method, m: r, next: next}
	mc.req = call.Request{Kind: call.Prompt, Name: r.Params.Name, SDK: mc}
	if len(r.Params.Arguments) > 0 {
		mc.req.Args = r.Params.Arguments
	}
	fill(ctx, &mc.req, r.Session, r.Extra, r.Params.Meta, r)
	mc.req.Registered = registered
	return requestAnswer(serve(ctx, &mc.req, handleMethod))
}

func handleMethod(ctx context.Context, r *call.Request) (call.Result, error) {
	mc := r.SDK.(*methodCall)
	res, err := mc.next(ctx, mc.method, mc.m)
	if err != nil && !nilResourceError(err) {
		return nil, toolError(err)
	}
	if res == nil || errbase.NilValue(reflect.ValueOf(res)) {
		// A prompt handler's (nil, nil), which go-sdk would send as null.
		return nil, nil
	}
	return content.Method{R: res}, nil
}

// requestAnswer turns the chain's answer to a resources/read or prompts/get
// into what go-sdk sends: a failure is always a *jsonrpc.Error, whose code
// and data go-sdk sends as they are.
func requestAnswer(a call.Answer) (mcp.Result, error) {
	switch {
	case a.Protocol != nil:
		return nil, wireError(a.Protocol)
	case a.RPC != nil:
		return nil, rpcError(a.RPC)
	case a.Result != nil:
		return a.Result.(content.Method).R, nil
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "mcpwrap: empty answer"} // unreachable
}

// rpcError is the go-sdk form of a JSON-RPC error the chain built.
func rpcError(e *errmap.RPCError) *jsonrpc.Error {
	w := &jsonrpc.Error{Code: int64(e.Code), Message: e.Message}
	if data, err := json.Marshal(e.Data); err == nil {
		w.Data = data
	}
	return w
}
