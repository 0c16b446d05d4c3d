package errbase

import (
	"errors"
	"fmt"
	"reflect"
)

// Guard returns err as an error that is safe to hand to code that inspects
// it (an SDK, a server's hooks) whatever err is: errors.Is and errors.As see
// err's chain, but a method of it that panics counts as no match, and a
// match that is a nil pointer counts as none; Unwrap is absent, so nothing
// walks the chain unguarded; Error is read once, here, and a nil pointer or
// a panicking Error method is described instead of read. Guard(nil) is nil.
func Guard(err error) error {
	if err == nil {
		return nil
	}
	if g, ok := err.(*guarded); ok {
		return g
	}
	return &guarded{err: err, text: safeText(err)}
}

type guarded struct {
	err  error
	text string
}

func (g *guarded) Error() string { return g.text }

func (g *guarded) Is(target error) bool { return SafeIs(g.err, target) }

func (g *guarded) As(target any) bool { return SafeAs(g.err, target) }

// SafeIs is errors.Is(err, target), false where a method in err's chain
// panics.
func SafeIs(err, target error) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return errors.Is(err, target)
}

// SafeAs is errors.As(err, target), false where a method in err's chain
// panics or the match is a nil pointer. target is set only on a match.
func SafeAs(err error, target any) (ok bool) {
	t := reflect.ValueOf(target)
	if t.Kind() != reflect.Pointer || t.IsNil() {
		return false // errors.As rejects such a target before calling As
	}
	found := reflect.New(t.Type().Elem())
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	if !errors.As(err, found.Interface()) || NilValue(found.Elem()) {
		return false
	}
	t.Elem().Set(found.Elem())
	return true
}

// NilValue reports whether v holds a nil pointer, map, slice, func or
// channel, directly or inside an interface.
func NilValue(v reflect.Value) bool {
	if v.Kind() == reflect.Interface {
		if v.IsNil() {
			return true
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		return v.IsNil()
	}
	return false
}

// IsNil reports whether err is a nil pointer (or map, slice, func, channel)
// held by a non-nil error: a typed nil, whose methods usually panic.
func IsNil(err error) bool {
	return err != nil && NilValue(reflect.ValueOf(err))
}

// safeText is err's text, or a description of why it cannot be read.
func safeText(err error) (s string) {
	if IsNil(err) {
		return fmt.Sprintf("<nil %T>", err)
	}
	defer func() {
		if r := recover(); r != nil {
			s = fmt.Sprintf("<%T.Error() panicked: %v>", err, r)
		}
	}()
	return err.Error()
}

// nilCause stands in for a nil pointer given as a cause, so that Unwrap
// never returns a typed nil as a non-nil error.
type nilCause struct{ typ string }

func (n *nilCause) Error() string { return "<nil " + n.typ + ">" }

// Usable returns err, or an error describing it when err is a typed nil.
func Usable(err error) error {
	if IsNil(err) {
		return &nilCause{typ: fmt.Sprintf("%T", err)}
	}
	return err
}
