package wrap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
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
		res := mcp.NewToolResultError(scrubText(capText(o.err.Cause().Error()), secretValues(req, cfg.red), cfg.red))
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
		cfg.fatal.trigger(rec.tool, rec.id(), o.err)
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
	known := secretValues(req, red)
	msg := scrubText(e.Message(), known, red)
	changed := msg != e.Message()
	viols := e.Violations()
	for i := range viols {
		v := &viols[i]
		for _, s := range []*string{&v.Got, &v.Message, &v.Parameter} {
			if t := scrubText(*s, known, red); t != *s {
				*s, changed = t, true
			}
		}
	}
	if !changed {
		return e
	}
	return errs.Wrap(e.Code(), e, msg, errs.RetryAfter(e.RetryAfter()), errs.Violations(viols...))
}

// scrubText replaces the known secret values in s, then secret shapes.
func scrubText(s string, known []string, red *observe.Redactor) string {
	if s == "" {
		return s
	}
	for _, k := range known {
		s = strings.ReplaceAll(s, k, observe.Redacted)
	}
	return red.String(s)
}

// Bounds of the search for secret values in a call's arguments.
const (
	maxSecretDepth = 16
	maxSecretNodes = 4096
	minSecretLen   = 4 // shorter values would scrub ordinary words
)

// secretValues returns the values, in req's arguments and headers, under
// names red considers secret.
func secretValues(req *mcp.CallToolRequest, red *observe.Redactor) []string {
	var found []string
	budget := maxSecretNodes
	collectSecrets(req.Params.Arguments, red, false, &found, &budget, 0)
	for k, vs := range req.Header {
		if red.IsSecretName(k) {
			for _, v := range vs {
				if _, tok, ok := strings.Cut(v, " "); ok && len(tok) >= minSecretLen {
					found = append(found, tok)
				}
				if len(v) >= minSecretLen {
					found = append(found, v)
				}
			}
		}
	}
	return found
}

func collectSecrets(v any, red *observe.Redactor, secret bool, found *[]string, budget *int, depth int) {
	*budget--
	if *budget < 0 || depth > maxSecretDepth {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			collectSecrets(e, red, secret || red.IsSecretName(k), found, budget, depth+1)
		}
	case []any:
		for _, e := range x {
			collectSecrets(e, red, secret, found, budget, depth+1)
		}
	case string:
		if secret && len(x) >= minSecretLen {
			*found = append(*found, x)
		}
	case float64:
		if secret {
			if s := strconv.FormatFloat(x, 'f', -1, 64); len(s) >= minSecretLen {
				*found = append(*found, s)
			}
		}
	case json.Number:
		if secret && len(x) >= minSecretLen {
			*found = append(*found, string(x))
		}
	}
}
