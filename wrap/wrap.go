package wrap

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
)

// Wrapper holds an evaluated configuration and builds protected handlers
// from it. A Wrapper and every handler it returns are safe for concurrent use.
type Wrapper struct {
	cfg config
}

// New evaluates the options once and returns a Wrapper.
func New(opts ...Option) *Wrapper {
	return &Wrapper{cfg: newConfig(config{}, opts)}
}

// Middleware returns New(opts...).Middleware(): the one-line retrofit,
//
//	server.NewMCPServer(name, version, server.WithToolHandlerMiddleware(wrap.Middleware()))
func Middleware(opts ...Option) server.ToolHandlerMiddleware {
	return New(opts...).Middleware()
}

// Tool returns New(opts...).Tool(tool, h).
func Tool(tool mcp.Tool, h server.ToolHandlerFunc, opts ...Option) server.ServerTool {
	return New(opts...).Tool(tool, h)
}

// Middleware returns the chain as an mcp-go tool middleware, for
// server.WithToolHandlerMiddleware or (*server.MCPServer).Use. Register it
// first so that it is outermost and sees what other middleware does.
func (w *Wrapper) Middleware() server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		// mcp-go rebuilds the chain on every call, so this must stay one
		// closure: the layers are methods, not nested closures.
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return w.call(ctx, req, next, &w.cfg)
		}
	}
}

// Tool wraps one tool's handler, for server.AddTools / AddTool. Options given
// here apply to this tool only, on top of the Wrapper's. Do not also install
// the Middleware on the same server, or calls are wrapped twice.
func (w *Wrapper) Tool(tool mcp.Tool, h server.ToolHandlerFunc, opts ...Option) server.ServerTool {
	cfg := w.cfg
	if len(opts) > 0 {
		cfg = newConfig(w.cfg, opts)
	}
	cfg.tool = &tool
	return server.ServerTool{
		Tool: tool,
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return w.call(ctx, req, h, &cfg)
		},
	}
}

// call is the whole chain for one call: finish(timeout(retry(recover(next)))).
func (w *Wrapper) call(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc, cfg *config) (*mcp.CallToolResult, error) {
	var rec record
	ctx = rec.start(ctx, cfg, &req)
	if cfg.fatal != nil && cfg.fatal.stopping.Load() {
		return finish(ctx, cfg, &rec, &outcome{err: errStopping})
	}
	var o outcome
	if d := cfg.timeoutFor(req.Params.Name); d > 0 {
		o = runWithTimeout(ctx, &req, next, d, cfg, &rec)
	} else {
		// run, written out: a call that is not inlined copies the whole
		// request.
		attempt(ctx, &req, next, &rec, &o)
		if cfg.retry != nil {
			retried(ctx, &req, next, cfg, &rec, &o)
		}
	}
	return finish(ctx, cfg, &rec, &o)
}

// outcome is what one run of a handler produced.
type outcome struct {
	res   *mcp.CallToolResult
	err   error
	panic *PanicError
	// sideEffects is set when a transient failure was not retried because
	// the tool is not safe to repeat (errs.Call.SideEffects).
	sideEffects sideEffects
}

// PanicError is the cause recorded when a handler panics: the value and the
// stack, for the operator. The model never sees either.
type PanicError struct {
	Value any
	Stack []byte
}

// Error returns "panic: <value>".
func (p *PanicError) Error() string { return fmt.Sprintf("panic: %v", p.Value) }

// attempt runs the handler once, counting the attempt, and stores what it
// produced in o. It is the innermost layer: run (retry.go) calls it again
// for a retry. The outcome goes through a pointer because returning the
// five-word struct by value through the layers cost more than the rest of
// the chain (store-forwarding stalls on the copies).
func attempt(ctx context.Context, req *mcp.CallToolRequest, next server.ToolHandlerFunc, rec *record, o *outcome) {
	rec.attempted()
	*o = outcome{}
	protect(ctx, req, next, o)
}

// protect runs next and turns a panic into a PanicError.
func protect(ctx context.Context, req *mcp.CallToolRequest, next server.ToolHandlerFunc, o *outcome) {
	defer func() {
		if r := recover(); r != nil {
			*o = outcome{panic: &PanicError{Value: r, Stack: debug.Stack()}}
		}
	}()
	o.res, o.err = next(ctx, *req)
}

// finish maps an outcome to what mcp-go sends: always a result, except for
// the escape hatch and errors mcp-go itself must turn into protocol errors.
func finish(ctx context.Context, cfg *config, rec *record, o *outcome) (*mcp.CallToolResult, error) {
	switch {
	case o.panic != nil:
		rec.fail(outcomePanic, errs.Wrap(errs.Internal, o.panic, ""))
	case o.err != nil:
		if pe, ok := protocolCause(o.err); ok {
			rec.passthrough(o.err)
			rec.log(ctx, cfg)
			return nil, pe
		}
		if o.res != nil {
			rec.discarded = true
		}
		code := errs.CodeOf(o.err)
		rec.fail(code.String(), o.err)
	case o.res == nil:
		rec.fail(errs.Internal.String(), errs.Wrap(errs.Internal, errNoResult, ""))
	case o.res.NeedsInput():
		rec.outcome = outcomeInputRequired
	case o.res.IsError:
		rec.outcome = outcomeToolError
	default:
		rec.outcome = outcomeSuccess
	}
	if rec.err == nil {
		rec.result = o.res
		rec.log(ctx, cfg)
		return o.res, nil
	}
	res := errs.ToResult(rec.err, errs.Call{Tool: rec.tool, ID: rec.id(), Attempts: int(rec.attempts), SideEffects: o.sideEffects.String()})
	rec.result = res
	rec.log(ctx, cfg)
	if cfg.fatal != nil && errs.CodeOf(rec.err) == errs.Fatal {
		cfg.fatal.trigger(cfg.logger, rec.tool, rec.id(), rec.err)
	}
	return res, nil
}

var errNoResult = errors.New("handler returned neither a result nor an error")
