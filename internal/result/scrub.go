package result

import (
	"net/http"
	"strconv"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/redact"
)

// Scrub removes the call's secrets (the values of its arguments and
// headers under secret names) and secret-shaped text from an error result
// the handler built itself (an upstream's body with a key in it), as from
// the chain's own: from its texts and from every string and secret-named
// key of its structured content, one rule for all the model reads.
// Structured content too deep or too large to scrub is left out.
func Scrub(res call.Result, red *redact.Redactor, args any, header http.Header) call.Result {
	var known []string
	looked := false
	if ed, ok := res.(call.Editor); ok {
		if sc := ed.Structured(); sc != nil {
			known, looked = red.Secrets(args, header), true
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
			known, looked = red.Secrets(args, header), true
		}
		return red.Scrub(s, known)
	})
}

// ScrubError returns e with the call's secrets removed from what the model
// reads: the values of the arguments (and headers) whose names are secret
// — the default names, the observer's, the fields of a typed tool tagged
// mcpwrap:"secret" — and secret-shaped text (bearer tokens, API keys,
// password=… pairs), the way the log line is redacted. A masked error
// shows none of its text and is returned as it is, as is an error with
// nothing to remove.
func ScrubError(e *errs.Error, red *redact.Redactor, args any, header http.Header) *errs.Error {
	if !e.Code().Public() {
		return e
	}
	known := red.Secrets(args, header)
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

// TooLarge is the answer to a success over the cap of limit bytes that
// must keep its structured content whole (the tool declares an output
// schema, or the chain cannot tell): the call succeeded, so the model is
// told so, with errs.ResultTooLarge (not a failure, not retryable) and, for
// a tool that may change something, that its side effects happened and a
// repeat would repeat them. A tool that only reads is told to ask for less.
func TooLarge(tool string, size, limit int, info call.Info) (*errs.Error, errmap.SideEffects) {
	from, to := ByteSizes(size, limit)
	msg := "tool " + strconv.Quote(tool) + " succeeded, but its result (" + from + ") was not sent: it is over the " +
		to + " limit, and its structured content, which the tool's output schema requires, cannot be cut"
	if !info.ReadOnly && !info.Idempotent {
		return errs.New(errs.ResultTooLarge, msg), errmap.SideEffectsHappened
	}
	if info.Paging != "" {
		msg += "; ask for less with the " + strconv.Quote(info.Paging) + " parameter"
	} else {
		msg += "; calling it again the same way gets the same answer"
	}
	return errs.New(errs.ResultTooLarge, msg), errmap.SideEffectsUnknown
}
