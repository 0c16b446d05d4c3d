package wrap

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/redact"
	"github.com/mcpwrap/mcpwrap/internal/result"
)

// finish is the outermost layer of a tool call: it maps the outcome of the
// inner layers to what the adapter sends — always a result, except for the
// escape hatch — and ends the observation (one log line, the span, the
// metric).
func finish(ctx context.Context, cfg *config, rec *record, req *call.Request, o *outcome) answer {
	if o.proto != nil {
		rec.passthrough(o.proto, o.protoCode, o.protoClass)
		rec.log(ctx)
		return answer{Protocol: o.proto}
	}
	if o.err == nil {
		switch {
		case o.res == nil:
			o.err = errs.Wrap(errs.Internal, errNoResult, "")
		default:
			large, err := bound(ctx, o, rec, cfg, req)
			if err != nil {
				o.err = errs.Wrap(errs.Internal, fmt.Errorf("the handler's result cannot be encoded as JSON, so it was not sent: %w", err), "")
				o.discarded = true
			} else if large != nil {
				// A success the cap cannot send (see tooLarge): an error
				// result that says the call succeeded. Not a failure:
				// o.err stays nil, so the loop guard does not count it.
				res := errmap.ToResult(large.err, errmap.Call{Tool: rec.tool, ID: rec.id(), Attempts: int(rec.attempts), SideEffects: large.side})
				rec.fail(obs.CodeOutcome(errs.ResultTooLarge), large.err)
				rec.result = result.ErrorText(res.Text)
				rec.log(ctx)
				return answer{Error: res}
			}
		}
	}
	if o.err == nil {
		switch o.res.Status() {
		case call.InputRequired:
			rec.outcome = obs.OutcomeInputRequired
		case call.ToolError:
			rec.outcome = obs.OutcomeToolError
			o.res = scrubResult(o.res, req, cfg.red)
			rec.result = o.res
			rec.log(ctx)
			return answer{Result: withCallID(o.res, rec.id())}
		default:
			rec.outcome = obs.OutcomeSuccess
		}
		rec.result = o.res
		rec.log(ctx)
		return answer{Result: o.res}
	}
	rec.discarded = o.discarded
	if o.public {
		res := errmap.ToResult(o.err, errmap.Call{Tool: rec.tool, ID: rec.id(), Attempts: int(rec.attempts),
			Shown: publicText(o.err, req, cfg)})
		rec.outcome = obs.OutcomeToolError
		rec.err, rec.public = o.err, true
		rec.result = result.ErrorText(res.Text)
		rec.log(ctx)
		return answer{Error: res}
	}
	outcome := obs.CodeOutcome(o.err.Code())
	if o.panic != nil {
		outcome = obs.OutcomePanic
	}
	rec.fail(outcome, o.err)
	res := errmap.ToResult(scrubbed(o.err, req, cfg.red),
		errmap.Call{Tool: rec.tool, ID: rec.id(), Attempts: int(rec.attempts), SideEffects: o.sideEffects})
	rec.result = result.ErrorText(res.Text)
	rec.log(ctx)
	if cfg.fatal != nil && o.err.Code() == errs.Fatal {
		cfg.fatal.Trigger(cfg.observer, rec.tool, rec.id(), o.err)
	}
	return answer{Error: res}
}

var errNoResult = errors.New("handler returned neither a result nor an error")

// callIDReserve is the room the cap leaves in an error result the handler
// built for the call id the chain adds to it (withCallID).
const callIDReserve = 64

// overCap is a success the cap cannot send: its error and what it says of
// side effects.
type overCap struct {
	err  *errs.Error
	side errmap.SideEffects
}

// bound checks that the SDK can send the handler's result and, when the
// result knows its size (call.Sizer), cuts it to the tool's result limit.
// A success whose structured content the tool's output schema requires
// cannot be cut (a cut copy would not conform, and a success without it
// breaks the schema): bound returns what finish answers instead (tooLarge).
func bound(ctx context.Context, o *outcome, rec *record, cfg *config, req *call.Request) (*overCap, error) {
	sz, ok := o.res.(call.Sizer)
	if !ok {
		return nil, o.res.Check()
	}
	size, err := sz.Measure()
	if err != nil {
		return nil, err
	}
	limit := cfg.resultLimitFor()
	status := o.res.Status()
	budget := limit
	if status == call.ToolError && limit >= 0 {
		budget = max(limit-callIDReserve, 0)
	}
	if limit < 0 || size <= budget {
		return nil, nil
	}
	rec.cutFrom = size
	info := toolInfo(ctx, cfg, req)
	ed, _ := o.res.(call.Editor)
	structured := ed != nil && ed.Structured() != nil
	if structured && status == call.Success && (info.Output || !info.Known) {
		return tooLarge(rec.tool, size, limit, info), nil
	}
	o.res = sz.Cut(budget, result.CutNote(size, limit, status == call.ToolError, structured, info.Paging))
	return nil, nil
}

// tooLarge is the answer to a success over the cap that must keep its
// structured content whole (the tool declares an output schema, or the
// chain cannot tell): the call succeeded, so the model is told so, with
// errs.ResultTooLarge (not a failure, not retryable) and, for a tool that
// may change something, that its side effects happened and a repeat would
// repeat them. A tool that only reads is told to ask for less.
func tooLarge(tool string, size, limit int, info call.Info) *overCap {
	from, to := result.ByteSizes(size, limit)
	msg := "tool " + strconv.Quote(tool) + " succeeded, but its result (" + from + ") was not sent: it is over the " +
		to + " limit, and its structured content, which the tool's output schema requires, cannot be cut"
	if !info.ReadOnly && !info.Idempotent {
		return &overCap{err: errs.New(errs.ResultTooLarge, msg), side: errmap.SideEffectsHappened}
	}
	if info.Paging != "" {
		msg += "; ask for less with the " + strconv.Quote(info.Paging) + " parameter"
	} else {
		msg += "; calling it again the same way gets the same answer"
	}
	return &overCap{err: errs.New(errs.ResultTooLarge, msg)}
}

// toolInfo is what the chain knows of the called tool: its own chain's
// definition, the request's, or the adapter's lookup.
func toolInfo(ctx context.Context, cfg *config, req *call.Request) call.Info {
	switch {
	case cfg.info.Known && cfg.infoName == req.Name:
		return cfg.info
	case !req.Tool.Known && req.Lookup != nil:
		return req.Lookup.Tool(ctx, req.Name)
	}
	return req.Tool
}

// scrubResult removes the call's secrets and secret-shaped text from an
// error result the handler built itself (an upstream's body with a key in
// it), as from the chain's own: from its texts and from every string and
// secret-named key of its structured content, one rule for all the model
// reads. Structured content too deep or too large to scrub is left out.
func scrubResult(res call.Result, req *call.Request, red *redact.Redactor) call.Result {
	var known []string
	looked := false
	if ed, ok := res.(call.Editor); ok {
		if sc := ed.Structured(); sc != nil {
			known, looked = red.Secrets(req.Args, req.Header), true
			s := red.ScrubStructured(sc, known)
			known = append(known, s.Secrets...)
			switch {
			case s.Dropped:
				res = ed.WithStructured(nil)
			case s.Changed:
				res = ed.WithStructured(s.Value)
			}
		}
	}
	return res.MapText(func(s string) string {
		if !looked {
			known, looked = red.Secrets(req.Args, req.Header), true
		}
		return red.Scrub(s, known)
	})
}

// withCallID gives an error result the handler built the call id, as every
// error result the chain builds has: a text content of its own, last, so
// the handler's texts and structured content (which its output schema may
// constrain) keep their shape.
func withCallID(res call.Result, id string) call.Result {
	if ed, ok := res.(call.Editor); ok {
		return ed.AppendText("(call id " + id + ")")
	}
	return res
}

// publicText is the text of a plain error the model may read: the one the
// default rule scrubbed (classify), or, for an error WithPublicErrors
// accepts, its own, capped and scrubbed of secrets.
func publicText(e *errs.Error, req *call.Request, cfg *config) string {
	if m := e.Message(); m != "" {
		return m
	}
	return cfg.red.Scrub(result.CapText(e.Unwrap().Error()), cfg.red.Secrets(req.Args, req.Header))
}

// scrubbed returns e with the call's secrets removed from what the model
// reads: the values of the arguments (and headers) whose names are secret —
// the default names, the observer's, the fields of a typed tool tagged
// mcpwrap:"secret" — and secret-shaped text (bearer tokens, API keys,
// password=… pairs), the way the log line is redacted. A masked error
// shows none of its text and is returned as it is, as is an error with
// nothing to remove.
func scrubbed(e *errs.Error, req *call.Request, red *redact.Redactor) *errs.Error {
	if !e.Code().Public() {
		return e
	}
	known := red.Secrets(req.Args, req.Header)
	msg := red.Scrub(e.Message(), known)
	changed := msg != e.Message()
	viols := e.Violations()
	for i := range viols {
		v := &viols[i]
		for _, s := range []*string{&v.Got, &v.Message, &v.Parameter} {
			if t := red.Scrub(*s, known); t != *s {
				*s, changed = t, true
			}
		}
	}
	if !changed {
		return e
	}
	return errs.Wrap(e.Code(), e, msg, errs.RetryAfter(e.RetryAfter()), errs.Violations(viols...), errs.Omitted(e.Omitted()))
}
