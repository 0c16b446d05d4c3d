package wrap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/observe"
)

// finish is the outermost layer: it maps the outcome of the inner layers to
// what mcp-go sends — always a result, except for the escape hatch — and
// ends the observation (one log line, the span, the metric).
func finish(ctx context.Context, cfg *config, rec *record, req *mcp.CallToolRequest, o *outcome) (*mcp.CallToolResult, error) {
	if o.proto != nil {
		rec.passthrough(o.proto)
		rec.log(ctx)
		return nil, o.proto
	}
	if o.err == nil && o.res != nil && o.res.IsError {
		// mcp-go's typed handlers answer a binding failure themselves.
		if e, ok := errs.ArgumentResult(o.res, *req); ok {
			o.err = e
		}
	}
	if o.err == nil {
		switch {
		case o.res == nil:
			o.err = errs.Wrap(errs.Internal, errNoResult, "")
		default:
			if err := encodable(o.res); err != nil {
				o.err = errs.Wrap(errs.Internal, fmt.Errorf("the handler's result cannot be encoded as JSON, so it was not sent: %w", err), "")
				o.discarded = true
			}
		}
	}
	if o.err == nil {
		switch {
		case o.res.NeedsInput():
			rec.outcome = observe.OutcomeInputRequired
		case o.res.IsError:
			rec.outcome = observe.OutcomeToolError
		default:
			rec.outcome = observe.OutcomeSuccess
		}
		rec.result = o.res
		rec.log(ctx)
		return o.res, nil
	}
	rec.discarded = o.discarded
	if o.public {
		res := mcp.NewToolResultError(cfg.red.Scrub(capText(o.err.Cause().Error()), cfg.red.Secrets(req.Params.Arguments, req.Header)))
		rec.outcome = observe.OutcomeToolError
		rec.result = res
		rec.log(ctx)
		return res, nil
	}
	outcome := observe.CodeOutcome(o.err.Code())
	if o.panic != nil {
		outcome = observe.OutcomePanic
	}
	rec.fail(outcome, o.err)
	res := errs.ToResult(scrubbed(o.err, req, cfg.red),
		errs.Call{Tool: rec.tool, ID: rec.id(), Attempts: int(rec.attempts), SideEffects: o.sideEffects})
	rec.result = res
	rec.log(ctx)
	if cfg.fatal != nil && o.err.Code() == errs.Fatal {
		cfg.fatal.trigger(cfg.observer, rec.tool, rec.id(), o.err)
	}
	return res, nil
}

var errNoResult = errors.New("handler returned neither a result nor an error")

// encodable checks that mcp-go can send res: a result it cannot encode
// (a NaN in structuredContent, a channel, a failing MarshalJSON) would go
// out as an empty answer. Text-only results, the common case, cannot fail
// and are not encoded here.
func encodable(res *mcp.CallToolResult) error {
	if res.StructuredContent == nil && res.Meta == nil && res.InputRequests == nil && textOnly(res.Content) {
		return nil
	}
	return json.NewEncoder(io.Discard).Encode(res)
}

func textOnly(content []mcp.Content) bool {
	for _, c := range content {
		switch c.(type) {
		case mcp.TextContent, *mcp.TextContent:
		default:
			return false
		}
	}
	return true
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
func scrubbed(e *errs.Error, req *mcp.CallToolRequest, red *observe.Redactor) *errs.Error {
	if !e.Code().Public() {
		return e
	}
	known := red.Secrets(req.Params.Arguments, req.Header)
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
