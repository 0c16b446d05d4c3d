package errs

import (
	"errors"
	"time"
)

// FromUpstream is From for an error met while calling the upstream called
// name ("weather-api"): a standard error is classified as From classifies
// it, and its sentence names that upstream — "upstream weather-api refused
// the connection" where From says "the upstream service refused the
// connection". An error that already carries an *Error is returned as that
// *Error, its message unchanged. FromUpstream(name, nil) returns nil.
func FromUpstream(name string, err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	code, r := classifyReason(err)
	out := &Error{code: code, msg: r.phrase(name), cause: err}
	var ra interface{ RetryAfter() time.Duration }
	if errors.As(err, &ra) {
		out.retryAfter = ra.RetryAfter()
	}
	return out
}
