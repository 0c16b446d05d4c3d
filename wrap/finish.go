package wrap

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
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
		rec.passthrough(o.proto, o.protoCode, o.protoClass)
		rec.log(ctx)
		return Answer{Protocol: o.proto}
	}
	if o.err == nil {
		switch {
		case o.res == nil:
			o.err = errs.Wrap(errs.Internal, errNoResult, "")
		default:
			if err := bound(o, rec, cfg); err != nil {
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
		res := &errs.Result{Text: publicText(o.err, req, cfg)}
		rec.outcome = observe.OutcomeToolError
		rec.err, rec.public = o.err, true
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
		cfg.fatal.trigger(cfg.observer, rec.tool, rec.id(), o.err)
	}
	return Answer{Error: res}
}

var errNoResult = errors.New("handler returned neither a result nor an error")

// bound checks that the SDK can send the handler's result and, when the
// result knows its size (call.Sizer), cuts it to the tool's result limit.
func bound(o *outcome, rec *record, cfg *config) error {
	sz, ok := o.res.(call.Sizer)
	if !ok {
		return o.res.Check()
	}
	size, err := sz.Measure()
	if err != nil {
		return err
	}
	limit := cfg.resultLimitFor(rec.tool)
	if limit < 0 || size <= limit {
		return nil
	}
	rec.cutFrom = size
	o.res = sz.Cut(limit, cutNote(size, limit))
	return nil
}

// cutNote tells the model what was cut and what to do instead.
func cutNote(size, limit int) string {
	return "[mcpwrap: the result was cut from " + byteSize(size) + " to " + byteSize(limit) +
		" to fit the model's context; ask for a narrower range, fewer items or a smaller page]"
}

// byteSize writes n bytes for a person: 4.2 MB, 1 MB, 640 KB, 900 bytes.
func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return strings.TrimSuffix(strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64), ".0") + " MB"
	case n >= 1<<10:
		return strconv.Itoa(n>>10) + " KB"
	}
	return strconv.Itoa(n) + " bytes"
}

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

// publicText is the text of a plain error the model may read: its own,
// capped and scrubbed of the call's secrets.
func publicText(e *errs.Error, req *call.Request, cfg *config) string {
	return cfg.red.Scrub(capText(e.Cause().Error()), cfg.red.Secrets(req.Args, req.Header))
}

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
	return errs.Wrap(e.Code(), e, msg, errs.RetryAfter(e.RetryAfter()), errs.Violations(viols...), errs.Omitted(e.Omitted()))
}
