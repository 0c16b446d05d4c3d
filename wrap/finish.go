package wrap

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap/call"
)

// finish is the outermost layer of a tool call: it maps the outcome of the
// inner layers to what the adapter sends — always a result, except for the
// escape hatch — and ends the observation (one log line, the span, the
// metric).
func finish(ctx context.Context, cfg *config, rec *record, req *call.Request, o *outcome) Answer {
	if o.proto != nil {
		rec.passthrough(o.proto, o.protoCode)
		rec.log(ctx)
		return Answer{Protocol: o.proto}
	}
	if o.err == nil {
		switch {
		case o.res == nil:
			o.err = errs.Wrap(errs.Internal, errNoResult, "")
		default:
			if err := o.res.Check(); err != nil {
				o.err = errs.Wrap(errs.Internal, fmt.Errorf("the handler's result cannot be encoded as JSON, so it was not sent: %w", err), "")
				o.discarded = true
			}
		}
	}
	if o.err == nil {
		switch o.res.Status() {
		case call.InputRequired:
			rec.outcome = observe.OutcomeInputRequired
		case call.ToolError:
			rec.outcome = observe.OutcomeToolError
			o.res = scrubResult(o.res, req, cfg.red)
		default:
			rec.outcome = observe.OutcomeSuccess
		}
		rec.result = o.res
		rec.log(ctx)
		return Answer{Result: o.res}
	}
	rec.discarded = o.discarded
	if o.public {
		res := &errs.Result{Text: cfg.red.Scrub(capText(o.err.Cause().Error()), cfg.red.Secrets(req.Args, req.Header))}
		rec.outcome = observe.OutcomeToolError
		rec.result = textResult(res.Text)
		rec.log(ctx)
		return Answer{Error: res}
	}
	outcome := observe.CodeOutcome(o.err.Code())
	if o.panic != nil {
		outcome = observe.OutcomePanic
	}
	rec.fail(outcome, o.err)
	res := errs.ToResult(scrubbed(o.err, req, cfg.red),
		errs.Call{Tool: rec.tool, ID: rec.id(), Attempts: int(rec.attempts), SideEffects: o.sideEffects})
	rec.result = textResult(res.Text)
	rec.log(ctx)
	if cfg.fatal != nil && o.err.Code() == errs.Fatal {
		cfg.fatal.trigger(rec.tool, rec.id(), o.err)
	}
	return Answer{Error: res}
}

var errNoResult = errors.New("handler returned neither a result nor an error")

// scrubResult removes the call's secrets and secret-shaped text from an
// error result the handler built itself (an upstream's body with a key in
// it), as from the chain's own.
func scrubResult(res call.Result, req *call.Request, red *observe.Redactor) call.Result {
	var known []string
	looked := false
	return res.MapText(func(s string) string {
		if !looked {
			known, looked = red.Secrets(req.Args, req.Header), true
		}
		return red.Scrub(s, known)
	})
}

// textResult is an error result the chain built, as the observer sees it.
type textResult string

func (t textResult) Status() call.Status                       { return call.ToolError }
func (t textResult) Check() error                              { return nil }
func (t textResult) Text() string                              { return string(t) }
func (t textResult) MapText(f func(string) string) call.Result { return textResult(f(string(t))) }

// maxPublicText caps the text of an error shown through WithPublicErrors.
const maxPublicText = 4 << 10

func capText(s string) string {
	if len(s) <= maxPublicText {
		return s
	}
	cut := maxPublicText
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…(truncated, " + strconv.Itoa(len(s)) + " bytes)"
}

// scrubbed returns e with the call's secrets removed from what the model
// reads: the values of the arguments (and headers) whose names are secret —
// the default names, the observer's, the fields of a typed tool tagged
// mcpwrap:"secret" — and secret-shaped text (bearer tokens, API keys,
// password=… pairs), the way the log line is redacted. A masked error
// shows none of its text and is returned as it is, as is an error with
// nothing to remove.
func scrubbed(e *errs.Error, req *call.Request, red *observe.Redactor) *errs.Error {
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
	return errs.Wrap(e.Code(), e, msg, errs.RetryAfter(e.RetryAfter()), errs.Violations(viols...))
}
