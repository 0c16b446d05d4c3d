package wrap

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
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

// ServerOptions returns New(opts...).ServerOptions(): the one-line
// retrofit that also logs the calls mcp-go answers before any middleware,
//
//	server.NewMCPServer(name, version, wrap.ServerOptions(wrap.WithLogger(logger))...)
func ServerOptions(opts ...Option) []server.ServerOption {
	return New(opts...).ServerOptions()
}

// ServerOptions returns the Middleware as a server option, followed by
// Resources and Prompts (the same chain for resource, template and prompt
// handlers) and preceded, when
// the Wrapper logs or observes, by the observer's own server options: hooks
// that give the tools/calls mcp-go answers before any middleware runs
// (unknown tool, unparsable params, input schema validation) their one log
// line and span, and _meta / header trace propagation. Pass them to
// server.NewMCPServer before any other middleware option, so the chain is
// outermost.
func (w *Wrapper) ServerOptions() []server.ServerOption {
	var opts []server.ServerOption
	if w.cfg.observer != nil {
		opts = w.cfg.observer.ServerOptions()
	}
	return append(opts, server.WithToolHandlerMiddleware(w.Middleware()), w.Resources(), w.Prompts())
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
// A tool registered with Tool or Typed has its own chain, which knows the
// tool; for it the middleware does not wrap a second time but hands its
// configuration to that chain, which takes from it every option group the
// tool was not given (see Tool). So the two forms mix on one server: one log
// line, one span, one timeout, whichever Wrapper built the tool. A
// per-session tool built with Tool is not recognised and is wrapped twice.
func (w *Wrapper) Middleware() server.ToolHandlerMiddleware {
	pc := toolHandlerPC()
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		if hasOwnChain(next, pc) {
			// The middleware is the innermost: next is the tool's own chain.
			return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return next(withOuter(ctx, &w.cfg), req)
			}
		}
		// mcp-go rebuilds the chain on every call, so this must stay one
		// closure: the layers are functions, not nested closures.
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if srv := server.ServerFromContext(ctx); srv != nil && w.ownChain(srv, req.Params.Name, pc) {
				return next(withOuter(ctx, &w.cfg), req)
			}
			return w.call(ctx, req, next, &w.cfg)
		}
	}
}

// outerKey carries the Middleware's configuration to a tool's own chain.
type outerKey struct{}

func withOuter(ctx context.Context, cfg *config) context.Context {
	return context.WithValue(ctx, outerKey{}, cfg)
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
// here apply to this tool only, on top of the Wrapper's. On a server that
// also has a Middleware (of this Wrapper or another), every option group
// neither gave — telemetry (WithLogger, WithObserver), WithTimeout,
// WithRetry, WithFatalExit, WithPublicErrors — comes from the middleware's
// configuration, so wrap.Tool(tool, h) with no options is protected and
// observed exactly like the server's other tools. (It is never inlined:
// every handler must come from this one closure, whose code pointer the
// Middleware recognises.)
//
//go:noinline
func (w *Wrapper) Tool(tool mcp.Tool, h server.ToolHandlerFunc, opts ...Option) server.ServerTool {
	tc := &toolChain{w: w, h: h}
	tc.cfg = w.cfg
	if len(opts) > 0 {
		tc.cfg = newConfig(w.cfg, opts)
	}
	tc.cfg.tool = &tool
	return server.ServerTool{
		Tool: tool,
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return tc.w.call(ctx, req, tc.h, tc.config(ctx))
		},
	}
}

// toolChain is one tool's own chain.
type toolChain struct {
	w   *Wrapper
	h   server.ToolHandlerFunc
	cfg config
	// inherited caches cfg completed from the last Middleware
	// configuration seen (one per server in practice).
	inherited atomic.Pointer[inherited]
}

type inherited struct {
	outer *config
	cfg   config
}

// config returns the configuration of a call: the tool's own, completed by
// the Middleware's when one handed it over.
func (tc *toolChain) config(ctx context.Context) *config {
	outer, _ := ctx.Value(outerKey{}).(*config)
	if outer == nil {
		return &tc.cfg
	}
	if in := tc.inherited.Load(); in != nil && in.outer == outer {
		return &in.cfg
	}
	in := &inherited{outer: outer, cfg: tc.cfg.inherit(outer)}
	tc.inherited.Store(in)
	return &in.cfg
}

// call is the whole chain for one call, outermost first (the order the
// package doc writes out): observe's start, the rate limit (limit.go),
// admission (bulkhead.go),
// timeout, retry, recover and the handler, then finish and observe's end,
// and the call leaves what admission gave it. Each layer lives in its own
// file and calls only the next one inward.
func (w *Wrapper) call(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc, cfg *config) (*mcp.CallToolResult, error) {
	var rec record
	ctx = rec.start(ctx, cfg, &req)
	var o outcome
	adm := layers(ctx, &req, next, cfg, &rec, &o)
	res, err := finish(ctx, cfg, &rec, &req, &o)
	adm.leave()
	return res, err
}

// layers runs the layers between observe's start and finish — the rate
// limit, admission, then timeout or retry, and recover — leaving what they produced in o. The
// caller gives back what admission holds (leave) once the call is
// answered. Resources and prompts go through it too (resource.go).
func layers(ctx context.Context, req *mcp.CallToolRequest, next server.ToolHandlerFunc, cfg *config, rec *record, o *outcome) admitted {
	// A rate-limited call costs nothing more: it takes no bulkhead slot.
	if cfg.limit != nil {
		if err := cfg.limit.Admit(ctx, *req); err != nil {
			o.err = errs.From(err)
			return admitted{}
		}
	}
	adm, refused := cfg.admit(req.Params.Name)
	if refused != nil {
		*o = *refused
		return adm
	}
	if d := cfg.timeoutFor(req.Params.Name); d > 0 {
		withTimeout(ctx, req, next, d, cfg, rec, o)
	} else {
		retry(ctx, req, next, cfg, rec, o)
	}
	return adm
}

// outcome is what the layers produced for one call. It goes through a
// pointer because returning the struct by value through the layers cost
// more than the rest of the chain (store-forwarding stalls on the copies).
type outcome struct {
	res *mcp.CallToolResult
	// err is the failure, classified once where it is known (attempt,
	// admission, the timeout); nil on success.
	err *errs.Error
	// proto is an error that must reach mcp-go unchanged (ProtocolError,
	// URL elicitation); err is nil then.
	proto error
	panic *PanicError
	// discarded is set when the handler returned a result with its error.
	discarded bool
	// public is set when WithPublicErrors let the model read err's cause.
	public bool
	// sideEffects is set when a failure was not retried because the tool
	// is not safe to repeat (errs.Call.SideEffects).
	sideEffects errs.SideEffects
}
