package errs

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/errbase"
)

// Error is the one error type of mcpwrap. It is immutable: build it with New,
// Newf or Wrap and read it with its methods. The message is what the model
// sees (unless the code is masked); the cause is for the operator only.
// An *Error is safe for concurrent use.
type Error struct {
	code       Code
	msg        string
	cause      error
	retryAfter time.Duration
	violations []Violation
	// omitted counts the violations found but not listed.
	omitted int
}

// Violation is one thing wrong with the arguments, in machine-readable form.
type Violation struct {
	// Parameter is the JSON path of the argument, e.g. "filters[2].since".
	Parameter string `json:"parameter"`
	// Rule is the rule that failed, e.g. "required", "max", "unknown".
	Rule string `json:"rule"`
	// Expected says in words what would have been accepted.
	Expected string `json:"expected,omitempty"`
	// Got describes what came; empty when the value is secret or too long.
	Got string `json:"got,omitempty"`
	// Message is the whole sentence for the model.
	Message string `json:"message"`
}

// Detail is an optional piece of structured information attached at
// construction time; see RetryAfter and Violations.
type Detail func(*Error)

// RetryAfter records how long the caller should wait before retrying.
func RetryAfter(d time.Duration) Detail {
	return func(e *Error) {
		if d > 0 {
			e.retryAfter = d
		}
	}
}

// Violations attaches argument violations (for InvalidArgument errors).
func Violations(v ...Violation) Detail {
	return func(e *Error) { e.violations = append([]Violation(nil), v...) }
}

// Omitted records that n more violations were found than are attached:
// whoever collected them stopped listing at a cap. The error result adds
// the ones it leaves out itself and reports the sum as omittedViolations.
func Omitted(n int) Detail {
	return func(e *Error) {
		if n > 0 {
			e.omitted = n
		}
	}
}

// New returns an error with the given code and model-facing message.
// A code outside the closed set is treated as Internal.
func New(code Code, msg string, details ...Detail) *Error {
	e := &Error{code: code.valid(), msg: msg}
	for _, d := range details {
		if d != nil {
			d(e)
		}
	}
	return e
}

// Newf is New with a format string.
func Newf(code Code, format string, args ...any) *Error {
	return &Error{code: code.valid(), msg: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with the given code and model-facing message that
// keeps cause for the operator (logs, spans) and for errors.Is / errors.As.
func Wrap(code Code, cause error, msg string, details ...Detail) *Error {
	e := New(code, msg, details...)
	e.cause = errbase.Usable(cause)
	return e
}

// Error returns "code: message: cause", for logs. It is not what the model
// sees: the model reads Message, unless the code masks it. A cause whose
// text the message already starts with (FromStatus words its message from
// its cause) is not repeated.
func (e *Error) Error() string {
	s := e.code.String()
	if e.msg != "" {
		s += ": " + e.msg
	}
	if e.cause != nil {
		if c := e.cause.Error(); !strings.HasPrefix(e.msg, c) {
			s += ": " + c
		}
	}
	return s
}

// Unwrap returns the operator-only cause, or nil. A cause given as a nil
// pointer is replaced, at construction, by one describing it, so Unwrap
// never returns a typed nil as a non-nil error.
func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.cause
}

// Code returns the error's code.
func (e *Error) Code() Code { return e.code }

// Message returns the model-facing message, which may be empty.
func (e *Error) Message() string { return e.msg }

// RetryAfter returns the suggested wait before a retry, or 0 when unknown.
func (e *Error) RetryAfter() time.Duration { return e.retryAfter }

// Violations returns a copy of the argument violations.
func (e *Error) Violations() []Violation { return append([]Violation(nil), e.violations...) }

// Omitted returns how many violations were found beyond those attached.
func (e *Error) Omitted() int { return e.omitted }

// ErrNotSent marks a failure that happened before anything was sent to the
// upstream (a circuit breaker open, a failed dial, a closed client): match it
// with errors.Is, and wrap a failure of your own with it (%w) to say the
// same. Such a call changed nothing, so it is safe to repeat, and the model
// is told that nothing was done.
var ErrNotSent = errors.New("not sent to the upstream")

// CodeOf returns the code of err: the code of the first *Error in its chain,
// otherwise the classification of standard errors (see From). CodeOf(nil)
// is Internal; callers check for nil first.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) && e != nil {
		return e.code
	}
	code, _ := classify(err)
	return code
}

// From returns err as an *Error: the first *Error in its chain, or a new one
// whose code comes from classifying err, whose message is a safe generic
// sentence (never err.Error(), which may carry hostnames or SQL), and whose
// cause is err. From(nil) returns nil.
func From(err error) *Error {
	if err == nil {
		return nil
	}
	if errbase.IsNil(err) {
		return &Error{code: Internal, msg: phrasings[reasonNone].generic, cause: errbase.Usable(err)}
	}
	var e *Error
	if errors.As(err, &e) && e != nil {
		return e
	}
	code, reason := classify(err)
	return &Error{code: code, msg: reason, cause: errbase.Usable(err), retryAfter: retryAfterOf(err)}
}

// retryAfterOf is the wait an error in err's chain asks for (a
// RetryAfter method), or 0.
func retryAfterOf(err error) time.Duration {
	var ra interface{ RetryAfter() time.Duration }
	if errors.As(err, &ra) && !errbase.NilValue(reflect.ValueOf(ra)) {
		return ra.RetryAfter()
	}
	return 0
}
