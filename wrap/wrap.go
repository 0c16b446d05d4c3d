package wrap

import (
	"context"
	"sync"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/wrap/call"
)

// Wrapper holds an evaluated configuration and runs the chain with it. It
// knows no SDK: an adapter (wrap/mcpgo, wrap/gosdk) converts each request
// and answer at the edge. A Wrapper and every Chain it returns are safe
// for concurrent use; state that must outlive one SDK server (limits,
// bulkheads, retry budgets, instruments) lives here, so attaching a
// Wrapper to a server costs nothing lasting.
type Wrapper struct {
	cfg config
	// chains are the tools that have a chain of their own (Chain), by name.
	chains sync.Map
}

// New evaluates the options once and returns a Wrapper.
func New(opts ...Option) *Wrapper {
	return &Wrapper{cfg: newConfig(config{}, opts)}
}

// Handler is an SDK-neutral handler: the SDK's handler, called by an
// adapter, with its result seen as a call.Result.
type Handler func(ctx context.Context, req *call.Request) (call.Result, error)

// Answer is what the chain made of a request, for the adapter to send.
// Exactly one field is set.
type Answer struct {
	// Result is the handler's own result, sent unchanged: a success, an
	// isError result the handler built (its text scrubbed), or an
	// input_required result.
	Result call.Result
	// Error is the error result a tool call is answered with: isError, one
	// text content Error.Text and structuredContent Error.Structured().
	Error *errs.Result
	// RPC is the JSON-RPC error a resources/read or prompts/get is
	// answered with.
	RPC *errs.RPCError
	// Protocol is an error the SDK must get as the handler gave it
	// (ProtocolError): behind errs.Guard, so that its text and what
	// errors.Is and errors.As find in it are the handler's, and a broken
	// method in its chain cannot panic in the SDK.
	Protocol error
	// Detached is set when the handler still runs after the answer (a
	// timeout abandoned it): the adapter must not reuse what it handed the
	// chain for this request.
	Detached bool
}

// Serve runs the chain for one request with the Wrapper's options, or, for
// a tool that has a Chain of its own (registered with Chain under its
// name), with that chain's. It always returns an Answer; h's panics and
// errors are in it.
func (w *Wrapper) Serve(ctx context.Context, req *call.Request, h Handler) Answer {
	if req.Kind == call.Tool {
		if c, ok := w.chains.Load(req.Name); ok {
			return c.(*Chain).Serve(ctx, req, h)
		}
	}
	return serve(ctx, req, h, &w.cfg)
}

// Chain returns the chain of one tool, whose options are the Wrapper's with
// opts on top and whose definition is info, and registers it under name, so
// that Serve uses it for that tool. Adapters call it when a tool is
// registered through them with options or typed arguments.
func (w *Wrapper) Chain(name string, info call.Info, opts ...Option) *Chain {
	c := &Chain{}
	c.cfg = w.cfg
	if len(opts) > 0 {
		c.cfg = newConfig(w.cfg, opts)
	}
	c.cfg.info = info
	c.cfg.infoName = name
	w.chains.Store(name, c)
	return c
}

// Chain is one tool's own chain (see Wrapper.Chain). It is safe for
// concurrent use.
type Chain struct {
	cfg config
}

// Serve runs the chain for one call of the tool.
func (c *Chain) Serve(ctx context.Context, req *call.Request, h Handler) Answer {
	return serve(ctx, req, h, &c.cfg)
}

// Observer returns the observer the Wrapper's chain reports to (with the
// secret names it knows), nil when it neither logs nor observes: what an
// adapter connects the SDK's own hooks and tracing to.
func (w *Wrapper) Observer() *obs.Observer { return w.cfg.observer }

// Lookup returns the Chain registered under name, if any.
func (w *Wrapper) Lookup(name string) (*Chain, bool) {
	c, ok := w.chains.Load(name)
	if !ok {
		return nil, false
	}
	return c.(*Chain), true
}

// serve is the whole chain for one request, outermost first (the order the
// package doc writes out): observe's start, the arguments' shape (object),
// the rate limit, admission, timeout, retry, recover and the handler, then
// finish and observe's end, and the request leaves what admission gave it. Each layer lives in its
// own file and calls only the next one inward.
func serve(ctx context.Context, req *call.Request, h Handler, cfg *config) Answer {
	var rec record
	ctx = rec.start(ctx, cfg, req)
	var o outcome
	var lk loopKey
	guarded, shared := false, false
	if cfg.loops != nil {
		if lk, guarded = cfg.loops.key(ctx, req, cfg.observer); guarded {
			var e *errs.Error
			if e, shared = cfg.loops.refuse(ctx, lk, cfg.observer); e != nil {
				return refuseRepeated(ctx, cfg, &rec, req, e)
			}
		}
	}
	adm := layers(ctx, req, h, cfg, &rec, &o)
	var a Answer
	if req.Kind == call.Tool {
		a = finish(ctx, cfg, &rec, req, &o)
	} else {
		a = finishRequest(ctx, cfg, &rec, req, &o)
	}
	adm.leave()
	a.Detached = o.detached
	if guarded && o.proto == nil {
		cfg.loops.record(ctx, lk, o.err, shared, cfg.observer)
	}
	return a
}

// refuseRepeated answers a call the loop guard refuses, without running
// any layer: one log line (outcome repeated_failure), the span's event and
// the counter.
func refuseRepeated(ctx context.Context, cfg *config, rec *record, req *call.Request, e *errs.Error) Answer {
	rec.fail(obs.OutcomeRepeatedFailure, e)
	res := errs.ToResult(e, errs.Call{Tool: rec.tool, ID: rec.id(), SideEffects: errs.SideEffectsNone})
	rec.result = textResult(res.Text)
	rec.log(ctx)
	return Answer{Error: res}
}

// layers runs the layers between observe's start and finish — the rate
// limit, admission, then timeout or retry, and recover — leaving what they
// produced in o. The caller gives back what admission holds (leave) once
// the call is answered.
func layers(ctx context.Context, req *call.Request, next Handler, cfg *config, rec *record, o *outcome) admitted {
	if req.Kind == call.Tool && !cfg.bound {
		if e := object(req); e != nil {
			o.err = e
			return admitted{}
		}
	}
	// A rate-limited call costs nothing more: it takes no bulkhead slot.
	if cfg.limit != nil {
		lreq := req
		if req.Kind != call.Tool {
			// Resources and prompts are limited under the names the
			// layers know them by (ResourcesRead, PromptsGet + name).
			r := *req
			r.Name = rec.tool
			lreq = &r
		}
		if err := cfg.limit.Admit(ctx, lreq); err != nil {
			o.err = errs.From(err)
			return admitted{}
		}
	}
	adm, refused := cfg.admit(rec.tool)
	if refused != nil {
		*o = *refused
		return adm
	}
	if d := cfg.timeoutFor(rec.tool); d > 0 {
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
	res call.Result
	// err is the failure, classified once where it is known (attempt,
	// admission, the timeout); nil on success.
	err *errs.Error
	// proto is an error that must reach the SDK unchanged (ProtocolError);
	// err is nil then.
	proto error
	// protoCode is the JSON-RPC code proto is sent with
	// (ProtocolErrorCode), for the log line and the span.
	protoCode int
	// protoClass is the errs code an adapter gave proto
	// (ProtocolErrorFor); Internal when it gave none.
	protoClass errs.Code
	panic      *PanicError
	// discarded is set when the handler returned a result with its error.
	discarded bool
	// public is set when WithPublicErrors let the model read err's cause.
	public bool
	// sideEffects is set when a failure was not retried because the tool
	// is not safe to repeat (errs.Call.SideEffects).
	sideEffects errs.SideEffects
	// detached is set when the call was answered while its handler still
	// runs (a timeout abandoned it).
	detached bool
}
