package wrap

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/observe"
)

// Wrapper holds an evaluated configuration and builds protected handlers
// from it. A Wrapper and every handler it returns are safe for concurrent use.
type Wrapper struct {
	cfg config
	// plain remembers the tools the Middleware found without a chain of
	// their own (see ownChain); keys are plainKey.
	plain sync.Map
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
//
// A tool registered with Tool or Typed already has its own chain, which knows
// the tool; for it the middleware steps aside, so a call is never wrapped
// twice (one log line, one span, no multiplied retries). It recognises such a
// tool among the server's global tools; a per-session tool built with Tool is
// not recognised and would be wrapped twice.
func (w *Wrapper) Middleware() server.ToolHandlerMiddleware {
	pc := toolHandlerPC()
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		if hasOwnChain(next, pc) {
			return next // the middleware is the innermost: next is the tool's own chain
		}
		// mcp-go rebuilds the chain on every call, so this must stay one
		// closure: the layers are methods, not nested closures.
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if srv := server.ServerFromContext(ctx); srv != nil && w.ownChain(srv, req.Params.Name, pc) {
				return next(ctx, req)
			}
			return w.call(ctx, req, next, &w.cfg)
		}
	}
}

// plainKey names a tool of one server in Wrapper.plain.
type plainKey struct {
	srv  *server.MCPServer
	tool string
}

// ownChain reports whether the server's tool was registered through Tool.
// Only "no" is remembered (GetTool copies the tool, ~0.5 µs and an
// allocation per call): a tool re-registered later through Tool is then
// wrapped twice, which is harmless, while remembering "yes" could leave a
// tool re-registered without a chain unprotected.
func (w *Wrapper) ownChain(srv *server.MCPServer, tool string, pc uintptr) bool {
	key := plainKey{srv, tool}
	if _, plain := w.plain.Load(key); plain {
		return false
	}
	if st := srv.GetTool(tool); st != nil && hasOwnChain(st.Handler, pc) {
		return true
	}
	w.plain.Store(key, struct{}{})
	return false
}

// toolHandlerPC is the code pointer shared by every handler Tool builds (one
// function literal), by which the middleware recognises them.
func toolHandlerPC() uintptr {
	return reflect.ValueOf((&Wrapper{}).Tool(mcp.Tool{}, nil).Handler).Pointer()
}

// hasOwnChain reports whether h was built by Tool (or Typed).
func hasOwnChain(h server.ToolHandlerFunc, pc uintptr) bool {
	return h != nil && reflect.ValueOf(h).Pointer() == pc
}

// Tool wraps one tool's handler, for server.AddTools / AddTool. Options given
// here apply to this tool only, on top of the Wrapper's. On a server that also
// has the Middleware, the middleware steps aside for this tool. (It is
// never inlined: every handler must come from this one closure, whose code
// pointer the Middleware recognises.)
//
//go:noinline
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

// call is the whole chain for one call:
// finish(limit(admit(timeout(retry(recover(next)))))).
func (w *Wrapper) call(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc, cfg *config) (*mcp.CallToolResult, error) {
	var rec record
	ctx = rec.start(ctx, cfg, &req)
	// A rate-limited call costs nothing more: it takes no bulkhead slot.
	if cfg.limit != nil {
		if err := cfg.limit.Admit(ctx, req); err != nil {
			return finish(ctx, cfg, &rec, &outcome{err: err})
		}
	}
	adm, refused := cfg.admit(req.Params.Name)
	if refused != nil {
		return finish(ctx, cfg, &rec, refused)
	}
	defer adm.leave()
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
	sideEffects errs.SideEffects
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
		rec.fail(observe.OutcomePanic, errs.Wrap(errs.Internal, o.panic, ""))
	case o.err != nil:
		if pe, ok := protocolCause(o.err); ok {
			rec.passthrough(o.err)
			rec.log(ctx, cfg)
			return nil, pe
		}
		if o.res != nil {
			rec.discarded = true
		}
		// The one classification of the call: the result, the log, the
		// span and the fatal check all read this value.
		e := errs.From(o.err)
		rec.fail(observe.CodeOutcome(e.Code()), e)
	case o.res == nil:
		rec.fail(observe.CodeOutcome(errs.Internal), errs.Wrap(errs.Internal, errNoResult, ""))
	case o.res.NeedsInput():
		rec.outcome = observe.OutcomeInputRequired
	case o.res.IsError:
		rec.outcome = observe.OutcomeToolError
	default:
		rec.outcome = observe.OutcomeSuccess
	}
	if rec.err == nil {
		rec.result = o.res
		rec.log(ctx, cfg)
		return o.res, nil
	}
	res := errs.ToResult(rec.err, errs.Call{Tool: rec.tool, ID: rec.id(), Attempts: int(rec.attempts), SideEffects: o.sideEffects})
	rec.result = res
	rec.log(ctx, cfg)
	if cfg.fatal != nil && rec.err.Code() == errs.Fatal {
		cfg.fatal.trigger(rec.tool, rec.id(), rec.err)
	}
	return res, nil
}

var errNoResult = errors.New("handler returned neither a result nor an error")
