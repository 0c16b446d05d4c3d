package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/errbase"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/policy"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk/internal/content"
)

// Attach serves s's tools/call, resources/read and prompts/get through w's
// chain, with one receiving middleware. go-sdk runs the middleware added
// last outermost, so call Attach after the server's own
// AddReceivingMiddleware calls: a panic in middleware added later is not
// under the chain. Attaching allocates a few small objects and starts
// nothing; what must outlive the server lives in w. A nil w means
// wrap.New().
func Attach(s *mcp.Server, w *wrap.Wrapper) {
	s.AddReceivingMiddleware(newMiddleware(w, handlersOf(s)))
	s.AddSendingMiddleware(sending(w))
}

// middleware is newMiddleware for a server with a CompletionHandler and a
// SubscribeHandler.
func middleware(w *wrap.Wrapper) mcp.Middleware {
	return newMiddleware(w, handlers{complete: true, subscribe: true})
}

// newMiddleware returns w's chain as a go-sdk receiving middleware; under a
// policy it also filters the lists, completion/complete and resource
// subscriptions (has says which of their handlers the server has). Every
// other method passes through untouched. It is safe for concurrent use.
func newMiddleware(w *wrap.Wrapper, has handlers) mcp.Middleware {
	if w == nil {
		w = wrap.New()
	}
	m := methods{w: w, serve: adapter.Chain(w), e: adapter.Policy(w), o: adapter.Observer(w), hints: new(cacheHints), has: has}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if m.e != nil {
				if res, ok, err := m.policyMethod(ctx, method, req, next); ok {
					return res, err
				}
			}
			if res, ok, err := m.chainMethod(ctx, method, req, next); ok {
				return res, err
			}
			return next(ctx, method, req)
		}
	}
}

// methods is what newMiddleware's handlers share.
type methods struct {
	w     *wrap.Wrapper
	serve adapter.Serve
	e     *policy.Engine
	o     *obs.Observer
	hints *cacheHints
	has   handlers
}

// policyMethod serves the methods only a policy changes: the lists,
// completion/complete and the subscriptions; ok is false for the others.
func (m methods) policyMethod(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler) (res mcp.Result, ok bool, err error) {
	switch r := req.(type) {
	case *mcp.ListToolsRequest, *mcp.ListPromptsRequest, *mcp.ListResourcesRequest, *mcp.ListResourceTemplatesRequest:
		res, err := next(ctx, method, req)
		if err != nil {
			return res, true, err
		}
		return filterList(ctx, m.e, m.o, m.hints, req, res), true, nil
	case *mcp.CompleteRequest:
		res, err := serveComplete(ctx, m.e, m.has.complete, method, r, next)
		return res, true, err
	case *mcp.SubscribeRequest:
		res, err := serveSubscribe(ctx, m.e, m.has.subscribe, method, r, next)
		return res, true, err
	case *mcp.SubscriptionsListenRequest:
		res, err := next(ctx, method, listenable(ctx, m.e, r))
		return res, true, err
	}
	return nil, false, nil
}

// chainMethod runs the chain for a tools/call, resources/read or
// prompts/get; ok is false for other methods and requests without params.
func (m methods) chainMethod(ctx context.Context, method string, req mcp.Request, next mcp.MethodHandler) (res mcp.Result, ok bool, err error) {
	switch r := req.(type) {
	case *mcp.CallToolRequest:
		if r.Params == nil {
			return nil, false, nil
		}
		if adapter.Own(m.w, r.Params.Name) {
			// The tool's own handler (AddTool) must not run the chain a
			// second time.
			ctx = context.WithValue(ctx, servedKey{}, m.w)
		}
		res, err := serveTool(ctx, m.serve, r, toolNext{method: method, next: next})
		return res, true, err
	case *mcp.ReadResourceRequest:
		if r.Params == nil {
			return nil, false, nil
		}
		res, err := m.readResource(ctx, method, r, next)
		return res, true, err
	case *mcp.GetPromptRequest:
		if r.Params == nil {
			return nil, false, nil
		}
		res, err := servePrompt(ctx, m.serve, method, r, next)
		return res, true, err
	}
	return nil, false, nil
}

// readResource serves a resource read through the chain; with a policy,
// its answer is marked private to the caller.
func (m methods) readResource(ctx context.Context, method string, r *mcp.ReadResourceRequest, next mcp.MethodHandler) (mcp.Result, error) {
	res, err := serveResource(ctx, m.serve, method, r, next)
	if m.e != nil {
		res = m.hints.privateRead(ctx, m.o, res)
	}
	return res, err
}

// servedKey marks a call the attached Wrapper's chain serves, for the
// handlers AddTool builds: they must not run the chain a second time.
type servedKey struct{}

// toolNext is what serves a tools/call inside the chain: the rest of
// go-sdk's method handler chain (the middleware), or a tool's own handler
// (AddTool on a server without the middleware).
type toolNext struct {
	method string
	next   mcp.MethodHandler
	tool   mcp.ToolHandler
}

func (n toolNext) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if n.tool != nil {
		return n.tool(ctx, req)
	}
	res, err := n.next(ctx, n.method, req)
	r, _ := res.(*mcp.CallToolResult)
	return r, err
}

// toolCall is one tools/call on its way through the chain. They are
// pooled: a call allocates none unless a timeout abandoned its handler,
// which keeps its toolCall.
type toolCall struct {
	req  call.Request
	m    *mcp.CallToolRequest
	next toolNext
}

var toolCalls = sync.Pool{New: func() any { return new(toolCall) }}

// serveTool runs one tools/call through serve (a Wrapper's chain or one
// tool's).
func serveTool(ctx context.Context, serve adapter.Serve, req *mcp.CallToolRequest, next toolNext) (*mcp.CallToolResult, error) {
	tc := toolCalls.Get().(*toolCall)
	tc.m, tc.next = req, next
	tc.req = call.Request{Kind: call.Tool, Name: req.Params.Name, Raw: req.Params.Arguments, Rounds: rounds, Decode: content.DecodeTool, SDK: tc}
	if next.next != nil {
		tc.req.Lookup = tc // the server's tool list (lookup.go)
	}
	fill(ctx, &tc.req, req.Session, req.Extra, req.Params.Meta, req)
	a := serve(ctx, &tc.req, handleTool)
	if !a.Detached {
		*tc = toolCall{}
		toolCalls.Put(tc)
	}
	return toolAnswer(a)
}

// noHeaders is the Header of a request over HTTP that go-sdk gives none
// (its SSE transport): never written.
var noHeaders = http.Header{}

// fill completes a request from what go-sdk knows of it. A request over
// HTTP always has a Header, so that the chain never takes it for stdio's
// one connection (the loop guard's and the cache's callers).
func fill(ctx context.Context, r *call.Request, s *mcp.ServerSession, extra *mcp.RequestExtra, meta mcp.Meta, v interface{ ProtocolVersion() string }) {
	if len(meta) > 0 {
		r.Meta = meta
	}
	if extra != nil {
		r.Header = extra.Header
	}
	if r.Header == nil && overHTTP(ctx, extra) {
		r.Header = noHeaders
	}
	if s != nil {
		r.Session = s.ID()
	}
	r.Protocol = v.ProtocolVersion()
	r.Modern = r.Protocol >= content.ModernProtocol
	r.Identify, r.Unknown, r.Ask = identify, unknownName, ask
}

// handleTool runs the rest of go-sdk's chain for a toolCall and turns what
// go-sdk reports into what errs knows: a typed tool's error (SetError) is
// taken back out of its result, go-sdk's argument validation failures
// become InvalidArgument, a *jsonrpc.Error (go-sdk's own "unknown tool", a
// handler's) passes through with its code.
func handleTool(ctx context.Context, r *call.Request) (call.Result, error) {
	tc := r.SDK.(*toolCall)
	res, err := tc.next.call(ctx, tc.m)
	if err != nil {
		if a, ok := rawArgumentError(err, tc.m.Params.Arguments); ok {
			return resultOf(res), a
		}
		return resultOf(res), toolError(err)
	}
	if res == nil {
		return nil, nil
	}
	if res.IsError {
		if e := res.GetError(); e != nil && sdkText(res, e) {
			return nil, typedError(e, tc.m.Params.Arguments)
		}
	}
	return toolResult{R: res}, nil
}

// sdkText reports whether res's content is the text go-sdk's SetError put
// there (the error's own text), not a message the handler chose: only then
// is the error answered by the chain instead of the handler's result.
func sdkText(res *mcp.CallToolResult, err error) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = true // a panicking Error: the chain describes it
		}
	}()
	if len(res.Content) != 1 {
		return false
	}
	t, isText := res.Content[0].(*mcp.TextContent)
	return isText && t.Text == err.Error()
}

// typedError is toolError for the error a typed tool's result carries:
// go-sdk's own argument failures (raw holds the call's arguments) are
// InvalidArgument.
func typedError(err error, raw json.RawMessage) error {
	if a, ok := argumentError(err, raw); ok {
		return a
	}
	return toolError(err)
}

// toolError marks go-sdk's error values for errs and lets a *jsonrpc.Error
// through as a protocol answer with its code.
func toolError(err error) (out error) {
	// A broken error (a typed nil, an Error method that panics) is left to
	// the chain, which describes it; reading it here would panic.
	defer func() {
		if recover() != nil {
			out = err
		}
	}()
	if errbase.IsNil(err) {
		return err
	}
	if w, ok := err.(*jsonrpc.Error); ok {
		return call.ProtocolError(w, int(w.Code), sdkAnswerCode(w))
	}
	var e *errs.Error
	if errors.As(err, &e) {
		return err
	}
	return mark(err)
}

// toolAnswer turns the chain's answer into what go-sdk sends.
func toolAnswer(a call.Answer) (*mcp.CallToolResult, error) {
	switch {
	case a.Protocol != nil:
		return nil, wireError(a.Protocol)
	case a.Error != nil:
		return errorResult(a.Error), nil
	case a.Result != nil:
		return a.Result.(toolResult).R, nil
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "mcpwrap: empty answer"} // unreachable
}

// wireError is a protocol answer as go-sdk must get it: a *jsonrpc.Error,
// since any other error is sent with code 0.
func wireError(err error) error {
	var w *jsonrpc.Error
	if errors.As(err, &w) && w == err {
		return w
	}
	if errors.As(err, &w) {
		return &jsonrpc.Error{Code: w.Code, Message: err.Error(), Data: w.Data}
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// errorResult is the go-sdk form of an error result the chain built.
func errorResult(r *errmap.Result) *mcp.CallToolResult {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: r.Text}}, IsError: true}
	if sc := r.Structured(); sc != nil {
		res.StructuredContent = sc
	}
	return res
}

// InfoOf reads the errs.Info in a go-sdk result, whether built in process
// or decoded from the wire by a go-sdk client.
func InfoOf(res *mcp.CallToolResult) (errs.Info, bool) {
	if res == nil || !res.IsError {
		return errs.Info{}, false
	}
	return errmap.InfoOf(res.StructuredContent)
}
