package errs

import (
	"fmt"
	"reflect"
)

// nilValue reports whether v holds a nil pointer, map, slice, func or
// channel, directly or inside an interface.
func nilValue(v reflect.Value) bool {
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

// isNil reports whether err is a nil pointer (or map, slice, func, channel)
// held by a non-nil error: a typed nil, whose methods usually panic.
func isNil(err error) bool {
	return err != nil && nilValue(reflect.ValueOf(err))
}

// nilCause stands in for a nil pointer given as a cause, so that Unwrap
// never returns a typed nil as a non-nil error.
type nilCause struct{ typ string }

func (n *nilCause) Error() string { return "<nil " + n.typ + ">" }

// usable returns err, or an error describing it when err is a typed nil.
func usable(err error) error {
	if isNil(err) {
		return &nilCause{typ: fmt.Sprintf("%T", err)}
	}
	return err
}
