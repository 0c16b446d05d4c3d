package observe

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
)

// ServerOptions returns the mcp-go server options that connect a server to
// the Observer: the hook that records each tools/call's JSON-RPC request id
// (only hooks can see it), and the propagators that make trace context in
// params._meta and in HTTP headers the parent of the call's span. Give them
// after any server.WithHooks, which would replace the hook.
//
// For spans of the other methods (initialize, tools/list, …) add
// server.WithTracer(o.MCPTracer()) as well; a tools/call then still has one
// server span, named and attributed per the semantic conventions.
func (o *Observer) ServerOptions() []server.ServerOption {
	return []server.ServerOption{
		func(s *server.MCPServer) {
			h := s.GetHooks()
			if h == nil {
				h = &server.Hooks{}
				server.WithHooks(h)(s)
			}
			o.AddHooks(h)
		},
		server.WithMetaPropagator(o.MetaPropagator()),
		server.WithPropagator(o.HTTPPropagator()),
	}
}

// AddHooks registers on h the hooks the Observer needs, for servers that
// build their own server.Hooks: they record each tools/call's JSON-RPC
// request id and start time, and give the calls mcp-go answers before any
// middleware runs (unknown tool, unparsable params, input schema
// validation failures) their log line, span and duration metric. A call
// the middleware chain observed (Start) is not logged again.
func (o *Observer) AddHooks(h *server.Hooks) {
	h.AddBeforeCallTool(o.beforeCallTool)
	h.AddAfterCallTool(func(ctx context.Context, id any, req *mcp.CallToolRequest, result any) {
		o.answered(ctx, id, req, result, nil)
	})
	h.AddOnError(func(ctx context.Context, id any, method mcp.MCPMethod, msg any, err error) {
		if method == mcp.MethodToolsCall {
			req, _ := msg.(*mcp.CallToolRequest)
			o.answered(ctx, id, req, nil, err)
		}
	})
}

// pending is a tools/call between mcp-go's before-call hook and its
// answer.
type pending struct {
	id    string // the JSON-RPC request id
	begin time.Time
	seen  atomic.Bool // Start ran for it: the chain logs it
}

// beforeCallTool keys the call by the request context's Done channel:
// mcp-go gives the hooks and the middleware chain the same context, and
// calls the after-call or error hook, which removes the entry, once the
// call is answered. (A context.AfterFunc did the same at twice the cost.)
func (o *Observer) beforeCallTool(ctx context.Context, id any, _ *mcp.CallToolRequest) {
	if done := ctx.Done(); done != nil {
		o.calls.Store(done, &pending{id: formatRequestID(id), begin: time.Now()})
	}
}

func (o *Observer) pendingOf(ctx context.Context) *pending {
	done := ctx.Done()
	if done == nil {
		return nil
	}
	if v, ok := o.calls.Load(done); ok {
		return v.(*pending)
	}
	return nil
}

// answered forgets the call and, when the chain never saw it, records it:
// exactly one line per request either way.
func (o *Observer) answered(ctx context.Context, id any, req *mcp.CallToolRequest, result any, err error) {
	p := o.pendingOf(ctx)
	if p != nil {
		o.calls.Delete(ctx.Done())
		if p.seen.Load() {
			return
		}
	}
	o.unseen(ctx, p, id, req, result, err)
}

// unseen records a call mcp-go answered without running the middleware
// chain, or a server without observing middleware.
func (o *Observer) unseen(ctx context.Context, p *pending, id any, req *mcp.CallToolRequest, result any, err error) {
	var r mcp.CallToolRequest
	if req != nil {
		r = *req
	}
	begin := time.Now()
	if p != nil {
		begin = p.begin
	}
	c := o.newRecording(ctx, &r, newCallID(), begin)
	c.early = p != nil
	c.requestID = formatRequestID(id)
	out := unseenReport(result, err)
	if errors.Is(err, server.ErrToolNotFound) {
		c.anyTool = true
	}
	_, c = c.startSpan(ctx, &r)
	c.End(ctx, out)
}

// unseenReport describes mcp-go's own answer: a JSON-RPC error, an
// input-validation isError result, or a result from a handler nothing
// observed.
func unseenReport(result any, err error) Report {
	if err != nil {
		code := mcp.INTERNAL_ERROR
		var rpc interface{ ToJSONRPCError() mcp.JSONRPCError }
		if errors.As(err, &rpc) {
			code = rpc.ToJSONRPCError().Error.Code
		}
		return Report{Outcome: OutcomeProtocolError, Err: errs.Wrap(codeOfRPC(err, code), err, ""), JSONRPCCode: code}
	}
	res, _ := result.(*mcp.CallToolResult)
	switch {
	case res == nil:
		return Report{Outcome: OutcomeSuccess}
	case res.IsError:
		// Before the chain, an isError result is mcp-go's input schema
		// validation.
		return Report{Outcome: CodeOutcome(errs.InvalidArgument), Result: res,
			Err: errs.Wrap(errs.InvalidArgument, errors.New(resultText(res)), "")}
	}
	return Report{Outcome: OutcomeSuccess, Result: res}
}

func codeOfRPC(err error, code int) errs.Code {
	switch {
	case errors.Is(err, server.ErrToolNotFound):
		return errs.NotFound
	case code == mcp.INVALID_PARAMS, code == mcp.INVALID_REQUEST, code == mcp.PARSE_ERROR, code == mcp.METHOD_NOT_FOUND:
		return errs.InvalidArgument
	}
	return errs.Internal
}

// resultText is the text of a result's first text content.
func resultText(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			return t.Text
		}
	}
	return "error result"
}

func newCallID() string {
	var b [8]byte
	u := rand.Uint64()
	for i := range b {
		b[i] = byte(u >> (8 * i))
	}
	return hex.EncodeToString(b[:])
}

func formatRequestID(id any) string {
	switch v := id.(type) {
	case nil:
		return ""
	case mcp.RequestId:
		if v.IsNil() {
			return ""
		}
		return formatRequestID(v.Value())
	case *mcp.RequestId:
		if v == nil {
			return ""
		}
		return formatRequestID(*v)
	case string:
		return safeText(capString(v, maxNameBytes))
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		if v == float64(int64(v)) {
			return strconv.FormatInt(int64(v), 10)
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprint(id)
}
