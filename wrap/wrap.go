package wrap

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/callcache"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/loopguard"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/result"
)

// Wrapper holds an evaluated configuration and runs the chain with it. It
// knows no SDK: an adapter (wrap/mcpgo, wrap/gosdk) converts each request
// and answer at the edge. A Wrapper and every chain it runs are safe for
// concurrent use; state that must outlive one SDK server (limits,
// bulkheads, retry budgets, instruments) lives here, so attaching a
// Wrapper to a server costs nothing lasting.
type Wrapper struct {
	cfg config
	// named are ForTool's configurations, by the name the layers know a
	// request by (layerName); never changed after New.
	named map[string]*config
	// chains are the configurations of the tools registered with options
	// of their own (toolChain), by name.
	chains sync.Map
}

// New evaluates the options once and returns a Wrapper. It panics when an
// option is given where it means nothing (see ForTool).
func New(opts ...Option) *Wrapper {
	w := &Wrapper{cfg: newConfig(config{caches: new(callcache.Hub)}, opts)}
	if w.cfg.scoped {
		panic("wrap: WithScopes given to wrap.New: it declares one tool's scopes; give it in wrap.ForTool(name, …) or the tool's registration options")
	}
	tools := w.cfg.tools
	w.cfg.tools = nil
	if len(tools) == 0 {
		return w
	}
	args := w.addTools(tools)
	// The adapters log a call's arguments with the Wrapper's observer
	// (their hooks see the call first), so it learns each tool's mode.
	if w.cfg.observer != nil && len(args) > 0 {
		w.cfg.observer = w.cfg.observer.WithArguments(args...)
	}
	return w
}

// addTools evaluates the per-tool configurations; it returns the
// argument logging of the tools whose differs from the Wrapper's.
func (w *Wrapper) addTools(tools map[string][]Option) []obs.Option {
	w.named = make(map[string]*config, len(tools))
	var args []obs.Option
	for name, o := range tools {
		c := ownConfig(&w.cfg, name, o)
		if c.scoped && (name == resourcesRead || strings.HasPrefix(name, promptsGet)) {
			panic(fmt.Sprintf("wrap: WithScopes given in ForTool(%q): it declares a tool's scopes; a prompt's or resource's are authz.Policy's Prompts and Resources", name))
		}
		w.declare(&c)
		w.named[name] = &c
		if c.args != w.cfg.args {
			args = append(args, c.args.Option(name))
		}
	}
	return args
}

// declare tells the policy the scopes WithScopes gave c's tool.
func (w *Wrapper) declare(c *config) {
	if c.policy != nil && c.scoped {
		c.policy.Declare(c.infoName, c.scopes)
	}
}

// handler and answer are the chain's names for what an adapter hands it
// and gets back (package call's, shared with the adapters).
type (
	handler = call.Handler
	answer  = call.Answer
)

// serveAll runs the chain for one request with the Wrapper's options, or,
// for a tool that has a chain of its own (registered by toolChain under
// its name), with that chain's. It always returns an answer; h's panics
// and errors are in it.
func (w *Wrapper) serveAll(ctx context.Context, req *call.Request, h handler) answer {
	return serve(ctx, req, h, w.configFor(req))
}

// configFor is the configuration that serves req: its tool's own chain's
// (toolChain), ForTool's for its name, or the Wrapper's.
func (w *Wrapper) configFor(req *call.Request) *config {
	if req.Kind == call.Tool {
		if c, ok := w.chains.Load(req.Name); ok {
			return c.(*config)
		}
	}
	return w.configNamed(layerName(req))
}

// configNamed is ForTool's configuration for name, or the Wrapper's.
func (w *Wrapper) configNamed(name string) *config {
	if c, ok := w.named[name]; ok {
		return c
	}
	return &w.cfg
}

// toolChain returns the configuration of one tool's own chain — the
// Wrapper's options, ForTool's for name, then opts, and info as the
// tool's definition — and registers it under name, so that serveAll uses
// it for that tool. Adapters reach it (internal.go) when a tool is
// registered through them with options or typed arguments.
func (w *Wrapper) toolChain(name string, info call.Info, bound bool, opts []Option) *config {
	base := w.configNamed(name)
	c := *base
	if len(opts) > 0 {
		c = ownConfig(base, name, opts)
	}
	c.info = info
	c.infoName = name
	c.bound = c.bound || bound
	w.declare(&c)
	w.chains.Store(name, &c)
	return &c
}

// serve is the whole chain for one request, outermost first (the order the
// package doc writes out): observe's start, the arguments' shape (object),
// the rate limit, admission, timeout, retry, recover and the handler, then
// finish and observe's end, and the request leaves what admission gave it. Each layer lives in its
// own file and calls only the next one inward.
func serve(ctx context.Context, req *call.Request, h handler, cfg *config) answer {
	var rec record
	rec.round = cfg.states.Round(ctx, req)
	ctx = rec.start(ctx, cfg, req, rec.round.Chain())
	var o outcome
	lk, guarded, shared, refused := loopCheck(ctx, cfg, req)
	if refused != nil {
		return refuseRepeated(ctx, cfg, &rec, req, refused)
	}
	adm := layers(ctx, req, h, cfg, &rec, &o)
	ir := inputRequired(&o)
	if ir && (rec.round == nil || !rec.round.Asked) {
		restate(ctx, req, cfg, &rec, &o)
	}
	var a answer
	if req.Kind == call.Tool {
		a = finish(ctx, cfg, &rec, req, &o)
	} else {
		a = finishRequest(ctx, cfg, &rec, req, &o)
	}
	adm.leave()
	a.Detached = o.detached
	// An input_required round is neither a failure nor a success.
	if guarded && o.proto == nil && !ir {
		cfg.loops.Record(ctx, lk, o.err, shared, cfg.observer)
	}
	return a
}

// loopCheck is the loop guard's key for the call and whether it guards
// the call, whether the guard's count of it is shared, and the error of a
// call it refuses as a repeat.
func loopCheck(ctx context.Context, cfg *config, req *call.Request) (lk loopguard.Key, guarded, shared bool, refused *errs.Error) {
	if cfg.loops == nil {
		return lk, false, false, nil
	}
	if lk, guarded = cfg.loops.Key(ctx, req, cfg.observer); !guarded {
		return lk, false, false, nil
	}
	refused, shared = cfg.loops.Refuse(ctx, lk, cfg.observer)
	return lk, true, shared, refused
}

// refuseRepeated answers a call the loop guard refuses, without running
// any layer: one log line (outcome repeated_failure), the span's event and
// the counter.
func refuseRepeated(ctx context.Context, cfg *config, rec *record, req *call.Request, e *errs.Error) answer {
	rec.fail(obs.OutcomeRepeatedFailure, e)
	res := errmap.ToResult(e, errmap.Call{Tool: rec.tool, ID: rec.id(), SideEffects: errmap.SideEffectsNone})
	rec.result = result.ErrorText(res.Text)
	rec.log(ctx)
	return answer{Error: res}
}

// layers runs the layers between observe's start and finish — the rate
// limit, admission, then timeout or retry, and recover — leaving what they
// produced in o. The caller gives back what admission holds (leave) once
// the call is answered.
func layers(ctx context.Context, req *call.Request, next handler, cfg *config, rec *record, o *outcome) admitted {
	if !allowed(ctx, req, cfg, rec, o) {
		return admitted{}
	}
	if cfg.cache != nil {
		return cached(ctx, req, next, cfg, rec, o)
	}
	if cfg.caches.On() && mayWrite(ctx, req, cfg) {
		defer cfg.caches.Barrier(ctx, cfg.observer)
	}
	return admitRun(ctx, req, next, cfg, rec, o)
}

// admitRun runs the layers inside the cache: the rate limit, admission,
// then timeout or retry, and recover.
func admitRun(ctx context.Context, req *call.Request, next handler, cfg *config, rec *record, o *outcome) admitted {
	adm, ok := admitLimited(ctx, rec, req, cfg, o)
	if !ok {
		return adm
	}
	if d := cfg.timeoutFor(); d > 0 {
		withTimeout(ctx, req, next, d, cfg, rec, o)
	} else {
		retry(ctx, req, next, cfg, rec, o)
	}
	return adm
}

// admitCall runs the layers that decide whether a call runs at all —
// authorize, object, the rate limit and admission — and reports false,
// with the refusal in o, when it must not. A task is decided by them at
// its creation (task.go).
func admitCall(ctx context.Context, req *call.Request, cfg *config, rec *record, o *outcome) (admitted, bool) {
	if !allowed(ctx, req, cfg, rec, o) {
		return admitted{}, false
	}
	return admitLimited(ctx, rec, req, cfg, o)
}

// allowed runs authorize and object, the layers outside the cache.
func allowed(ctx context.Context, req *call.Request, cfg *config, rec *record, o *outcome) bool {
	if cfg.policy != nil && !authorize(ctx, req, cfg, rec, o) {
		return false
	}
	if req.Kind == call.Tool && !cfg.bound {
		if e := object(req); e != nil {
			o.err = e
			return false
		}
	}
	return true
}

// admitLimited runs the rate limit and admission.
func admitLimited(ctx context.Context, rec *record, req *call.Request, cfg *config, o *outcome) (admitted, bool) {
	// A rate-limited call costs nothing more: it takes no bulkhead slot.
	if cfg.limit != nil {
		// Resources and prompts are limited under the names the layers
		// know them by ("resources/read", "prompts/get " + name): rec.tool.
		if err := cfg.limit.Admit(ctx, rec.tool, req.Session, req.Header); err != nil {
			o.err = errs.From(err)
			return admitted{}, false
		}
	}
	adm, refused := cfg.admit(rec.tool)
	if refused != nil {
		*o = *refused
		return adm, false
	}
	return adm, true
}

// outcome is what the layers produced for one call. It goes through a
// pointer because returning the struct by value through the layers cost
// more than the rest of the chain (store-forwarding stalls on the copies).
type outcome struct {
	res call.Result
	// err is the failure, classified once where it is known (attempt,
	// admission, the timeout); nil on success.
	err *errs.Error
	// proto is an error that must reach the SDK unchanged (ProtocolError,
	// call.ProtocolError);
	// err is nil then.
	proto error
	// protoCode is the JSON-RPC code proto is sent with
	// (call.ProtocolError), for the log line and the span.
	protoCode int
	// protoClass is the errs code an adapter gave proto
	// (call.ProtocolError); Internal when it gave none.
	protoClass errs.Code
	panic      *panicError
	// discarded is set when the handler returned a result with its error.
	discarded bool
	// public is set when WithPublicErrors let the model read err's cause.
	public bool
	// sideEffects is set when a failure was not retried because the tool
	// is not safe to repeat (errmap.Call.SideEffects).
	sideEffects errmap.SideEffects
	// detached is set when the call was answered while its handler still
	// runs (a timeout abandoned it).
	detached bool
}
