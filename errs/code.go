package errs

import "fmt"

// Code is one of a closed set of failure classes. The zero value is Internal,
// so an error that was never classified is treated as the operator's problem
// and masked from the model.
type Code uint8

// The codes. Their String forms are stable: they appear in structuredContent,
// log lines and span attributes, and users filter on them.
const (
	// Internal is a bug or an unexpected condition; the model sees a generic
	// message and a call id, the operator sees the cause.
	Internal Code = iota
	// InvalidArgument means the arguments were wrong; the message says which
	// parameter and what was expected so the model can fix the call.
	InvalidArgument
	// NotFound means the thing the arguments name does not exist.
	NotFound
	// PermissionDenied means the caller may not do this (or the upstream
	// refused our credentials); retrying will not help.
	PermissionDenied
	// Conflict means the request clashes with the current state of the
	// target (HTTP 409, 412); it may succeed after the state changes.
	Conflict
	// Unavailable is a transient failure to reach an upstream: refused,
	// reset, 502/503. A retry may help.
	Unavailable
	// Timeout means the operation did not finish in time. It may still
	// complete upstream.
	Timeout
	// RateLimited means a limit was hit; the error may carry a retry-after.
	RateLimited
	// Canceled means the caller gave up (the client cancelled the request).
	Canceled
	// Fatal means the process cannot serve any further request (a missing
	// required setting, a corrupt configuration). The server stops.
	Fatal
	// ResultTooLarge means the call did what it was asked, but its result
	// was too large to send (over the answer-size cap, with the structured
	// content the tool's output schema requires whole): its side effects
	// happened, so repeating the call would repeat them. Not a failure of
	// the operation, and not retryable.
	ResultTooLarge

	numCodes = iota
)

var codeNames = [numCodes]string{
	Internal:         "internal",
	InvalidArgument:  "invalid_argument",
	NotFound:         "not_found",
	PermissionDenied: "permission_denied",
	Conflict:         "conflict",
	Unavailable:      "unavailable",
	Timeout:          "timeout",
	RateLimited:      "rate_limited",
	Canceled:         "canceled",
	Fatal:            "fatal",
	ResultTooLarge:   "result_too_large",
}

// String returns the code's snake_case name, e.g. "invalid_argument".
func (c Code) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("code(%d)", uint8(c))
}

// valid maps a code outside the closed set to Internal, so that a bad
// conversion can never unmask a message.
func (c Code) valid() Code {
	if int(c) < numCodes {
		return c
	}
	return Internal
}

// MarshalText returns String, so a Code is its name in JSON and in logs.
func (c Code) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText is the inverse of MarshalText: it reads a code's name, as a
// client finds it in an error result's structuredContent ("code":
// "not_found"); an unknown name is an error.
func (c *Code) UnmarshalText(b []byte) error {
	for i, n := range codeNames {
		if n == string(b) {
			*c = Code(i)
			return nil
		}
	}
	return fmt.Errorf("errs: unknown code %q", b)
}

// Retryable reports whether repeating the same call may succeed: true for
// Unavailable, Timeout and RateLimited. Whether it is safe to repeat is a
// separate question that depends on the tool (see the wrap package).
func (c Code) Retryable() bool {
	return c == Unavailable || c == Timeout || c == RateLimited
}

// Public reports whether an error's message is meant for the model. Internal
// and Fatal messages are masked: the model gets a generic sentence with the
// call id and the operator gets the cause.
func (c Code) Public() bool {
	return c != Internal && c != Fatal && int(c) < len(codeNames)
}
