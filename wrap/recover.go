package wrap

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/errbase"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
)

// panicError is the cause recorded when a handler panics: the value and the
// stack, for the operator. The model never sees either.
type panicError struct {
	Value any
	Stack []byte
}

// Error returns "panic: <value>".
func (p *panicError) Error() string { return fmt.Sprintf("panic: %v", p.Value) }

// attempt is the innermost layer, recover(handler): it runs the handler
// once, counting the attempt, turns a panic into a panicError, and
// classifies a returned error once, into o.err, which every outer layer
// reads.
func attempt(ctx context.Context, req *call.Request, next handler, cfg *config, rec *record, o *outcome) {
	rec.attempted()
	*o = outcome{}
	err := protect(ctx, req, next, o)
	if err != nil {
		o.discarded = o.res != nil
		settle(err, req, cfg, o)
	}
}

// protect runs next and turns a panic into a panicError.
func protect(ctx context.Context, req *call.Request, next handler, o *outcome) (err error) {
	defer func() {
		if r := recover(); r != nil {
			p := &panicError{Value: r, Stack: debug.Stack()}
			*o = outcome{panic: p, err: errs.Wrap(errs.Internal, p, "")}
			err = nil
		}
	}()
	o.res, err = next(ctx, req)
	return err
}

// settle classifies the error a handler returned. It is the one place the
// chain looks into a handler's error, so it is where a broken one is made
// safe: a nil pointer returned as an error, or one whose methods panic,
// becomes an Internal error describing it, and the call is still answered
// and logged.
func settle(err error, req *call.Request, cfg *config, o *outcome) {
	defer func() {
		if r := recover(); r != nil {
			o.proto, o.public = nil, false
			o.err = errs.Wrap(errs.Internal, &brokenError{msg: fmt.Sprintf(
				"<%T.Error() panicked> the handler's error could not be read: %v", err, r)}, "")
		}
	}()
	if errbase.IsNil(err) {
		o.err = errs.Wrap(errs.Internal, &brokenError{msg: fmt.Sprintf("<nil %T> the handler returned a nil pointer as its error", err)}, "")
		return
	}
	_ = err.Error() // a panicking Error method is caught here, not in the log line
	if pe, code, class, ok := call.ProtocolOf(err); ok {
		if errbase.IsNil(pe) {
			o.err = errs.Wrap(errs.Internal, &brokenError{msg: fmt.Sprintf("<nil %T> the handler returned a nil pointer as its protocol error", pe)}, "")
			return
		}
		_ = pe.Error()
		// The SDK and its hooks inspect what they are given; a broken
		// method deep in the handler's chain must not panic there.
		o.proto = errbase.Guard(pe)
		o.protoCode, o.protoClass = code, class
		return
	}
	o.err = classify(err, req, cfg, o)
}

// classify is the code of a handler's error: its *errs.Error if it has
// one; else what errs makes of a standard error, in the handler's own words
// where it wrapped one ("read note x.md: not found"); else, for an error
// errs would mask, what the model may read of it (see the package doc). (An
// adapter has already made the SDK's own argument errors InvalidArgument.)
func classify(err error, req *call.Request, cfg *config, o *outcome) *errs.Error {
	var e *errs.Error
	if errors.As(err, &e) {
		return e
	}
	e = errs.From(err)
	if e.Code() != errs.Internal {
		return ownWords(err, e, req, cfg)
	}
	switch {
	case cfg.maskAll:
		return e
	case cfg.public != nil:
		o.public = cfg.public(err)
		return e
	}
	text, ok := publicError(err.Error(), req, cfg)
	if !ok {
		return e
	}
	if code := errmap.StatusIn(text); code != errs.Internal {
		return errs.Wrap(code, err, text)
	}
	o.public = true
	return errs.Wrap(errs.Internal, err, text)
}

// publicError is text scrubbed for the model (redact.Redactor.Public),
// where the URI a resources/read named is the client's own, not an
// internal address: "reading resource res://nil: …" keeps it, redacted as
// the log line's is.
func publicError(text string, req *call.Request, cfg *config) (string, bool) {
	const self = "\x00uri\x00"
	own := req.Kind == call.Resource && len(req.Name) >= 4 && strings.Contains(text, req.Name)
	if own {
		text = strings.ReplaceAll(text, req.Name, self)
	}
	text, ok := cfg.red.Public(text, cfg.red.Secrets(req.Args, req.Header))
	if own {
		text = strings.ReplaceAll(text, self, cfg.red.URI(req.Name))
	}
	return text, ok
}

// ownWords returns e, the classification of a standard error, with the
// words the handler wrapped around it in front of errs' sentence: for
// fmt.Errorf("read note %s: %w", name, err) around an fs.ErrNotExist, "read
// note x.md: not found" instead of "not found" — never the standard error's
// own text, which holds paths and addresses. The handler's words are
// scrubbed as a plain error's are (redact.Redactor.Public), and left out
// when scrubbing left nothing worth reading of them.
func ownWords(err error, e *errs.Error, req *call.Request, cfg *config) *errs.Error {
	prefix := ownPrefix(err, e.Code())
	if prefix == "" || e.Message() == "" {
		return e
	}
	shown, ok := cfg.red.Public(prefix, cfg.red.Secrets(req.Args, req.Header))
	if !ok && shown != prefix {
		return e
	}
	return errs.Wrap(e.Code(), err, shown+": "+e.Message(), errs.RetryAfter(e.RetryAfter()))
}

// ownPrefix is the text err puts before the first error it wraps that has
// the code code: "<prefix>: <wrapped>"; "" if there is none.
func ownPrefix(err error, code errs.Code) string {
	full := err.Error()
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(u) {
		t := u.Error()
		if len(t)+2 <= len(full) && strings.HasSuffix(full, ": "+t) && errs.CodeOf(u) == code {
			return full[:len(full)-len(t)-2]
		}
	}
	return ""
}

// brokenError stands in for a handler's error that cannot be used as one.
type brokenError struct{ msg string }

func (b *brokenError) Error() string { return b.msg }
