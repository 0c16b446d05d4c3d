package wrap

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/result"
)

// finish is the outermost layer of a tool call: it maps the outcome of the
// inner layers to what the adapter sends — always a result, except for the
// escape hatch — and ends the observation (one log line, the span, the
// metric).
func finish(ctx context.Context, cfg *config, rec *record, req *call.Request, o *outcome) answer {
	if a, done := settled(ctx, rec, o); done {
		return a
	}
	if o.err == nil {
		if large, side := boundResult(ctx, cfg, rec, req, o); large != nil {
			return tooLarge(ctx, rec, large, side)
		}
	}
	if o.err == nil {
		return succeeded(ctx, cfg, rec, req, o)
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
	return failed(ctx, cfg, rec, req, o)
}

// settled is what finish and finishRequest do first: a protocol error the
// handler chose is passed through, answered (done); a handler that
// returned neither result nor error gets an internal error.
func settled(ctx context.Context, rec *record, o *outcome) (a answer, done bool) {
	if o.proto != nil {
		rec.passthrough(o.proto, o.protoCode, o.protoClass)
		rec.log(ctx)
		return answer{Protocol: o.proto}, true
	}
	if o.err == nil && o.res == nil {
		o.err = errs.Wrap(errs.Internal, errNoResult, "")
	}
	return answer{}, false
}

// boundResult is bound for finish: a result that cannot be encoded becomes
// the call's error, a success too large to send is returned as large.
func boundResult(ctx context.Context, cfg *config, rec *record, req *call.Request, o *outcome) (large *errs.Error, side errmap.SideEffects) {
	large, side, err := bound(ctx, o, rec, cfg, req)
	if err != nil {
		o.err = errs.Wrap(errs.Internal, fmt.Errorf("the handler's result cannot be encoded as JSON, so it was not sent: %w", err), "")
		o.discarded = true
	}
	return large, side
}

// tooLarge answers a success the cap cannot send (result.TooLarge): an
// error result that says the call succeeded. Not a failure: o.err stays
// nil, so the loop guard does not count it.
func tooLarge(ctx context.Context, rec *record, large *errs.Error, side errmap.SideEffects) answer {
	res := errmap.ToResult(large, errmap.Call{Tool: rec.tool, ID: rec.id(), Attempts: int(rec.attempts), SideEffects: side})
	rec.fail(obs.CodeOutcome(errs.ResultTooLarge), large)
	rec.result = result.ErrorText(res.Text)
	rec.log(ctx)
	return answer{Error: res}
}

// succeeded answers a result the handler returned: an error result it
// built is scrubbed and carries the call id.
func succeeded(ctx context.Context, cfg *config, rec *record, req *call.Request, o *outcome) answer {
	switch o.res.Status() {
	case call.InputRequired:
		rec.outcome = obs.OutcomeInputRequired
	case call.ToolError:
		rec.outcome = obs.OutcomeToolError
		o.res = result.Scrub(o.res, cfg.red, req.Args, req.Header)
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

// failed answers an error that is not public: its result is scrubbed of
// the call's secrets, and a Fatal error triggers the fatal hook.
func failed(ctx context.Context, cfg *config, rec *record, req *call.Request, o *outcome) answer {
	rec.failed(o)
	res := errmap.ToResult(result.ScrubError(o.err, cfg.red, req.Args, req.Header),
		errmap.Call{Tool: rec.tool, ID: rec.id(), Attempts: int(rec.attempts), SideEffects: o.sideEffects})
	rec.result = result.ErrorText(res.Text)
	rec.log(ctx)
	cfg.triggerFatal(rec, o.err)
	return answer{Error: res}
}

var errNoResult = errors.New("handler returned neither a result nor an error")

// callIDReserve is the room the cap leaves in an error result the handler
// built for the call id the chain adds to it (withCallID).
const callIDReserve = 64

// bound checks that the SDK can send the handler's result and, when the
// result knows its size (call.Sizer), cuts it to the tool's result limit.
// A success whose structured content the tool's output schema requires
// cannot be cut (a cut copy would not conform, and a success without it
// breaks the schema): bound returns the error finish answers instead
// (result.TooLarge) and what it says of side effects.
func bound(ctx context.Context, o *outcome, rec *record, cfg *config, req *call.Request) (*errs.Error, errmap.SideEffects, error) {
	sz, ok := o.res.(call.Sizer)
	if !ok {
		return nil, 0, o.res.Check()
	}
	size, err := sz.Measure()
	if err != nil {
		return nil, 0, err
	}
	limit := cfg.resultLimitFor()
	status := o.res.Status()
	budget := resultBudget(limit, status)
	if limit < 0 || size <= budget {
		return nil, 0, nil
	}
	rec.cutFrom = size
	info := toolInfo(ctx, cfg, req)
	ed, _ := o.res.(call.Editor)
	structured := ed != nil && ed.Structured() != nil
	if structured && status == call.Success && (info.Output || !info.Known) {
		e, side := result.TooLarge(rec.tool, size, limit, info)
		return e, side, nil
	}
	o.res = sz.Cut(budget, result.CutNote(size, limit, status == call.ToolError, structured, info.Paging))
	return nil, 0, nil
}

// resultBudget is what the result of status may take of the limit: all
// of it but for an error result the handler built, which keeps room for
// the call id the chain adds.
func resultBudget(limit int, status call.Status) int {
	if status == call.ToolError && limit >= 0 {
		return max(limit-callIDReserve, 0)
	}
	return limit
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

// triggerFatal runs the fatal hook (WithFatal) for a Fatal error.
func (c *config) triggerFatal(rec *record, err *errs.Error) {
	if c.fatal != nil && err.Code() == errs.Fatal {
		c.fatal.Trigger(c.observer, rec.tool, rec.id(), err)
	}
}
