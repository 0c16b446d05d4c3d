package errs

import (
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"time"
)

// failureKind is a failure an MCP SDK reports with its own error values (a
// session that ended, an authorization required…). An SDK adapter marks
// its SDK's errors with such a kind (mcpwrap's internal/errbase.Mark, used
// by the mcp-go and go-sdk adapters) so that errs classifies them without
// importing the SDK. errs imports nothing of mcpwrap, so it does not know
// the marks' types: a mark matches a kind of errs through errors.Is by the
// kind's name, which both sides return from MCPFailureKind. The names are
// that contract; internal/errbase's tests and the adapters' check it.
type failureKind string

// The kinds errs classifies (see classify).
const (
	kindSessionEnded     failureKind = "session_ended"
	kindAuthRequired     failureKind = "auth_required"
	kindInvalidParams    failureKind = "invalid_params"
	kindResourceNotFound failureKind = "resource_not_found"
	kindInterrupted      failureKind = "interrupted"
	kindTransport        failureKind = "transport"
)

func (k failureKind) Error() string { return "MCP failure " + string(k) }

// MCPFailureKind names the kind, for the marks' Is methods.
func (k failureKind) MCPFailureKind() string { return string(k) }

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

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP
// date, relative to now. It reports false for an empty or unparsable
// value; a date in the past gives 0, true.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		const maxSecs = int64(365 * 24 * time.Hour / time.Second)
		return time.Duration(min(secs, maxSecs)) * time.Second, true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	return max(t.Sub(now), 0), true
}
