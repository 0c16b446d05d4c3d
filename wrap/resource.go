package wrap

import (
	"context"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/observe"
)

// keyResourcesRead is the name the chain's layers (timeout, bulkhead,
// retry) know every resources/read by: one name, since URIs are unbounded.
// WithToolTimeout(keyResourcesRead, d) sets the timeout of resource reads.
const keyResourcesRead = "resources/read"

// Resources returns the mcp-go server option that protects every resource
// and resource template handler of the server with the Wrapper's chain: it
// adds ResourceMiddleware and the error hook that sends a failed read as
// its own JSON-RPC error (errs.ToJSONRPC). Give it after any
// server.WithHooks, which would replace the hook.
//
//	s := server.NewMCPServer("notes", "1.0.0",
//		server.WithToolHandlerMiddleware(w.Middleware()), w.Resources(), w.Prompts())
func (w *Wrapper) Resources() server.ServerOption {
	return w.withRPCErrors(mcp.MethodResourcesRead, server.WithResourceHandlerMiddleware(w.ResourceMiddleware()))
}

// ResourceMiddleware returns the chain for resources/read as an mcp-go
// resource middleware; mcp-go runs it for resource templates too. A handler
// that fails, returns nil contents, panics or outlives WithTimeout is
// answered with a JSON-RPC error: -32002 with the URI in data for
// errs.NotFound (-32602 for protocol 2026-07-28), -32602 for
// errs.InvalidArgument, and -32603 with a masked message and the call id
// for anything internal. Without the hook Resources adds, every failure is
// -32603 (with the same safe message). The handlers it returns are safe for
// concurrent use.
func (w *Wrapper) ResourceMiddleware() server.ResourceHandlerMiddleware {
	return func(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
		return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return w.read(ctx, req, next, &w.cfg)
		}
	}
}

func (w *Wrapper) read(ctx context.Context, req mcp.ReadResourceRequest, next server.ResourceHandlerFunc, cfg *config) ([]mcp.ResourceContents, error) {
	var rec record
	rec.tool = keyResourcesRead
	if cfg.observer != nil {
		ctx, rec.obs = cfg.observer.StartResource(ctx, req, rec.id())
	}
	r := request{key: keyResourcesRead, args: req.Params.Arguments,
		answer: errs.Request{URI: cfg.red.URI(req.Params.URI)}}
	return serveRequest(ctx, cfg, &rec, &r, func(ctx context.Context) ([]mcp.ResourceContents, bool, error) {
		c, err := next(ctx, req)
		return c, c != nil, err
	})
}

// serveRequest runs handle, which answers a resources/read or prompts/get
// (ok is false when it had nothing), as a tool handler through the chain,
// and returns its answer or the error mcp-go must send instead.
func serveRequest[V any](ctx context.Context, cfg *config, rec *record, r *request, handle func(context.Context) (v V, ok bool, err error)) (V, error) {
	var answer V
	run := func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		v, ok, err := handle(ctx)
		if err != nil || !ok {
			return nil, err
		}
		answer = v
		return &mcp.CallToolResult{}, nil
	}
	if err := r.serve(ctx, cfg, rec, run); err != nil {
		var zero V
		return zero, err
	}
	return answer, nil
}

// request is a resources/read or prompts/get going through the layers of
// the tool chain (see layers: rate limit, bulkhead and fatal drain,
// timeout, retry, recover), which know it by key.
// Its handler runs as a tool handler that keeps the real answer aside (see
// serveRequest) and returns an empty result, or no result when it had
// nothing.
type request struct {
	key    string
	args   map[string]any // for scrubbing secret values from messages
	answer errs.Request
}

// serve runs the handler through the chain and returns nil when its answer
// is to be sent, or the error mcp-go must send instead: an *errs.RPCError
// (or a ProtocolError's cause, unchanged). It logs and ends the
// observation.
func (r *request) serve(ctx context.Context, cfg *config, rec *record, run server.ToolHandlerFunc) error {
	var treq mcp.CallToolRequest
	treq.Params.Name = r.key
	treq.Params.Arguments = r.args
	r.answer.Modern = mcp.IsModernProtocol(server.RequestProtocolVersion(ctx))
	var o outcome
	begin := time.Now()
	adm := layers(ctx, &treq, run, cfg, rec, &o)
	defer adm.leave()
	if d := cfg.timeoutFor(r.key); d > 0 && o.err != nil && o.panic == nil && o.err.Code() == errs.Timeout && time.Since(begin) >= d {
		// The timeout layer speaks of tools.
		o.err = errs.Wrap(errs.Timeout, o.err.Cause(),
			r.subject()+" timed out after "+d.String()+"; it may still complete upstream")
	}
	return r.finish(ctx, cfg, rec, &treq, &o)
}

// finish maps the outcome to what mcp-go sends and ends the observation.
func (r *request) finish(ctx context.Context, cfg *config, rec *record, treq *mcp.CallToolRequest, o *outcome) error {
	if o.proto != nil {
		rec.passthrough(o.proto)
		rec.log(ctx)
		return o.proto
	}
	if o.err == nil && o.res == nil {
		o.err = errs.Wrap(errs.Internal, errNoResult, "")
	}
	if o.err == nil {
		rec.outcome = observe.OutcomeSuccess
		rec.log(ctx)
		return nil
	}
	outcome := observe.CodeOutcome(o.err.Code())
	if o.panic != nil {
		outcome = observe.OutcomePanic
	}
	rec.fail(outcome, o.err)
	answer := r.answer
	answer.CallID, answer.Attempts = rec.id(), int(rec.attempts)
	rpc := errs.ToJSONRPC(scrubbed(o.err, treq, cfg.red), answer)
	rec.rpcCode = rpc.Code
	rec.log(ctx)
	if cfg.fatal != nil && o.err.Code() == errs.Fatal {
		cfg.fatal.trigger(cfg.observer, r.key, rec.id(), o.err)
	}
	return rpc
}

// subject names the request in a sentence.
func (r *request) subject() string {
	if r.answer.URI != "" {
		return "reading resource " + strconv.Quote(r.answer.URI)
	}
	return "prompt " + strconv.Quote(r.answer.Prompt)
}
