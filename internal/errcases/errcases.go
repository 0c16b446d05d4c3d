// Package errcases is the set of errors a handler may return that tests of
// error safety run through both SDK adapters: plain, wrapped, joined, typed
// nils, errors whose methods panic, errs codes, protocol errors, and
// seeded random compositions of them. Probe inspects the error an adapter
// hands its SDK the way an SDK or a server's hooks may (errors.As for many
// target types, errors.Is, Unwrap all the way down) and reports what
// panicked or returned a typed nil.
package errcases

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net"
	"os"
	"reflect"
	"strconv"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errbase"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// Case is one error a handler returns; Err builds it anew for each call.
type Case struct {
	Name string
	Err  func() error
}

// Plain is the text of the three-line server: a plain error whose
// text may be shown.
const Plain = "backend answered a shape the server cannot decode"

// NilError is an error type whose methods dereference their receiver: a
// nil *NilError returned as an error is the classic typed nil.
type NilError struct{ Msg string }

func (e *NilError) Error() string { return e.Msg }

// Unwrap dereferences the receiver, as real error types do.
func (e *NilError) Unwrap() error { return errors.New(e.Msg) }

// Wrapper wraps an error without reading it at construction (unlike
// fmt.Errorf, which calls Error), so a broken error can sit deep in a
// chain.
type Wrapper struct {
	Msg string
	Err error
}

func (w *Wrapper) Error() string { return w.Msg }
func (w *Wrapper) Unwrap() error { return w.Err }

// Joined is errors.Join without reading the errors at construction.
type Joined struct{ Errs []error }

func (j *Joined) Error() string   { return "several failures" }
func (j *Joined) Unwrap() []error { return j.Errs }

// Broken is an error one of whose methods panics (Error, Unwrap, Is or
// As, by Method).
type Broken struct{ Method string }

func (b Broken) Error() string {
	if b.Method == "Error" {
		panic("Error panicked")
	}
	return "broken " + b.Method
}

// Unwrap panics when asked to.
func (b Broken) Unwrap() error {
	if b.Method == "Unwrap" {
		panic("Unwrap panicked")
	}
	return nil
}

// Is panics when asked to.
func (b Broken) Is(error) bool {
	if b.Method == "Is" {
		panic("Is panicked")
	}
	return false
}

// As panics when asked to.
func (b Broken) As(any) bool {
	if b.Method == "As" {
		panic("As panicked")
	}
	return false
}

// base are the building blocks.
func base() []Case {
	var typedNil *NilError
	var nilErrs *errs.Error
	cs := []Case{
		{"plain", func() error { return errors.New(Plain) }},
		{"plain_secret", func() error {
			return errors.New("dial postgres://admin:hunter2@db.internal:5432/x: connection refused")
		}},
		{"wrapped", func() error { return fmt.Errorf("load report: %w", errors.New(Plain)) }},
		{"joined", func() error { return errors.Join(errors.New(Plain), io.ErrUnexpectedEOF) }},
		{"typed_nil", func() error { return typedNil }},
		{"typed_nil_wrapped", func() error { return &Wrapper{Msg: "load: nil", Err: typedNil} }},
		{"typed_nil_joined", func() error { return &Joined{Errs: []error{errors.New(Plain), typedNil}} }},
		{"errs_typed_nil", func() error { return nilErrs }},
		{"errs_typed_nil_wrapped", func() error { return &Wrapper{Msg: "classified nil", Err: nilErrs} }},
		{"errs_wraps_typed_nil", func() error { return errs.Wrap(errs.Unavailable, typedNil, "the backend did not answer") }},
		{"fs_not_exist", func() error { return fmt.Errorf("read note x.md: %w", fs.ErrNotExist) }},
		{"deadline", func() error { return fmt.Errorf("query: %w", context.DeadlineExceeded) }},
		{"canceled", func() error { return context.Canceled }},
		{"net_op", func() error {
			return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", errors.New("connection refused"))}
		}},
		{"protocol", func() error { return wrap.ProtocolError(errors.New("the server is shutting down")) }},
		{"protocol_typed_nil", func() error { return wrap.ProtocolError(typedNil) }},
		{"protocol_broken", func() error { return wrap.ProtocolError(Broken{Method: "Unwrap"}) }},
	}
	for _, m := range []string{"Error", "Unwrap", "Is", "As"} {
		cs = append(cs, Case{"panicking_" + m, func() error { return Broken{Method: m} }},
			Case{"panicking_" + m + "_wrapped", func() error { return &Wrapper{Msg: "call failed", Err: Broken{Method: m}} }})
	}
	for _, c := range errmap.Codes() {
		cs = append(cs, Case{"errs_" + c.String(), func() error { return errs.New(c, "the "+c.String()+" message") }},
			Case{"errs_" + c.String() + "_wraps_broken", func() error { return errs.Wrap(c, Broken{Method: "Is"}, "the "+c.String()+" message") }})
	}
	return cs
}

// Cases returns the base cases and n seeded random compositions of them
// (wrapped, joined, classified by errs, marked as protocol errors, up to
// three levels deep), the same for the same seed.
func Cases(seed uint64, n int) []Case {
	bs := base()
	out := append([]Case(nil), bs...)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for i := range n {
		out = append(out, compose(r, bs, "mix"+strconv.Itoa(i), 1+r.IntN(3)))
	}
	return out
}

func compose(r *rand.Rand, bs []Case, name string, depth int) Case {
	c := bs[r.IntN(len(bs))]
	for range depth {
		inner := c
		codes := errmap.Codes()
		switch r.IntN(5) {
		case 0:
			c = Case{inner.Name + "+wrapper", func() error { return &Wrapper{Msg: "step failed", Err: inner.Err()} }}
		case 1:
			other := bs[r.IntN(len(bs))]
			c = Case{inner.Name + "+join(" + other.Name + ")", func() error { return &Joined{Errs: []error{inner.Err(), other.Err()}} }}
		case 2:
			code := codes[r.IntN(len(codes))]
			c = Case{inner.Name + "+errs." + code.String(), func() error { return errs.Wrap(code, inner.Err(), "the step failed") }}
		case 3:
			c = Case{inner.Name + "+mark", func() error { return errbase.Mark(inner.Err(), errbase.Transport) }}
		case 4:
			c = Case{inner.Name + "+errors.Join", func() error { return errors.Join(inner.Err(), io.EOF) }}
		}
	}
	c.Name = name + ":" + c.Name
	return c
}

// targets are the types errors.As is asked for: ours, the standard
// library's, the cases' own (a typed nil among them), and interfaces.
func targets() []any {
	return []any{
		new(*errs.Error), new(*errmap.RPCError), new(*NilError), new(*Wrapper), new(*Joined), new(Broken),
		new(*os.PathError), new(*net.OpError), new(*json.SyntaxError), new(*fs.PathError),
		new(interface{ Timeout() bool }), new(interface{ Temporary() bool }),
		new(interface{ RetryAfter() time.Duration }), new(error),
	}
}

// sentinels are the targets errors.Is is asked for.
func sentinels() []error {
	var typedNil *NilError
	return []error{errs.New(errs.NotFound, ""), errs.New(errs.Internal, ""), errs.ErrNotSent, errbase.SessionEnded, errbase.Transport,
		io.EOF, context.Canceled, context.DeadlineExceeded, fs.ErrNotExist, typedNil, Broken{}}
}

// Probe inspects err as an SDK or a hook may: errors.As for every target
// type (the common ones and extra, pointers to the SDK's own types) — a
// match must not be a nil pointer —, errors.Is for common sentinels, and
// Unwrap (both forms) all the way down, reading every error's text — no
// unwrapped error may be a typed nil. It returns what went wrong, nil when
// nothing did.
func Probe(err error, extra ...any) []string {
	var bad []string
	try := func(what string, f func() string) {
		defer func() {
			if r := recover(); r != nil {
				bad = append(bad, fmt.Sprintf("%s panicked: %v", what, r))
			}
		}()
		if s := f(); s != "" {
			bad = append(bad, what+": "+s)
		}
	}
	for _, t := range append(targets(), extra...) {
		name := reflect.TypeOf(t).Elem().String()
		try("errors.As("+name+")", func() string {
			if errors.As(err, t) && errbase.NilValue(reflect.ValueOf(t).Elem()) {
				return "matched a nil pointer"
			}
			return ""
		})
	}
	for _, s := range sentinels() {
		try(fmt.Sprintf("errors.Is(%T)", s), func() string { _ = errors.Is(err, s); return "" })
	}
	try("Unwrap", func() string { return walk(err, 0) })
	return bad
}

// walk unwraps err all the way down, reading each error's text.
func walk(err error, depth int) string {
	if depth > 64 {
		return ""
	}
	if depth > 0 && errbase.IsNil(err) {
		return fmt.Sprintf("unwrapped to a nil %T at depth %d", err, depth)
	}
	_ = err.Error()
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		if next := u.Unwrap(); next != nil {
			return walk(next, depth+1)
		}
	case interface{ Unwrap() []error }:
		for _, next := range u.Unwrap() {
			if next == nil {
				continue
			}
			if s := walk(next, depth+1); s != "" {
				return s
			}
		}
	}
	return ""
}
