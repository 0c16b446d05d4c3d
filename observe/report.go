package observe

import (
	"log/slog"
	"strconv"
	"strings"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
	"github.com/mcpwrap/mcpwrap/wrap/call"
)

// Outcome is how a call ended, the value of the log line's "outcome" and
// of the span's mcpwrap.outcome: one of the constants below, or, for a
// failed call, the name of its errs.Code (CodeOutcome).
type Outcome string

// Outcomes that are not error codes.
const (
	OutcomeSuccess       Outcome = "success"
	OutcomeToolError     Outcome = "tool_error"
	OutcomeInputRequired Outcome = "input_required"
	OutcomePanic         Outcome = "panic"
	OutcomeProtocolError Outcome = "protocol_error"
	// OutcomeRepeatedFailure: the call was refused without running, the
	// same call having failed the same way too often (wrap.WithLoopGuard).
	OutcomeRepeatedFailure Outcome = "repeated_failure"
)

// CodeOutcome is the outcome of a call that failed with code c.
func CodeOutcome(c errs.Code) Outcome { return Outcome(c.String()) }

// Report is how a call ended, as the caller of Start saw it.
type Report struct {
	// Outcome is the log line's outcome.
	Outcome Outcome
	// Err is the error behind a failed call, classified once by the caller
	// (operator-only; redacted before it is logged or recorded).
	Err *errs.Error
	// Attempts is how many times the handler ran.
	Attempts int
	// Discarded is set when the handler returned a result and an error.
	Discarded bool
	// Masked is set when the model was given a generic message instead of
	// the error's own text; the log line says masked=true and the span
	// carries mcpwrap.masked.
	Masked bool
	// Stack is the stack of a recovered panic.
	Stack []byte
	// Result is what the client receives, when it is a result.
	Result call.Result
	// JSONRPCCode is non-zero when the call was answered with a JSON-RPC
	// error instead of a result.
	JSONRPCCode int
	// CutFrom is the size in bytes of the handler's result before the
	// answer-size cap cut it; 0 when it was not cut.
	CutFrom int
}

// ErrorType returns the semantic conventions' error.type: the JSON-RPC code
// for a protocol error, tool_error for an isError result, "" for success.
func (out *Report) ErrorType() string {
	switch {
	case out.JSONRPCCode != 0:
		return strconv.Itoa(out.JSONRPCCode)
	case out.Err != nil, out.Result != nil && out.Result.Status() == call.ToolError:
		return semconv.ErrorTypeToolError
	}
	return ""
}

func (out *Report) level() slog.Level {
	if out.Err == nil {
		if out.Outcome == OutcomeToolError {
			return slog.LevelWarn
		}
		return slog.LevelInfo
	}
	switch out.Err.Code() {
	case errs.Internal, errs.Fatal:
		return slog.LevelError
	}
	return slog.LevelWarn
}

// causeText is e's "message: cause" for the operator (the line has the code
// in a field of its own), each part cut to n (plus the scrub margin) before
// it is joined, so that a multi-megabyte message or cause is never copied
// whole. A cause whose text the message already starts with (errs.FromStatus
// words its message from its cause) is not repeated.
func causeText(e *errs.Error, n int) string {
	if e == nil {
		return ""
	}
	m := e.Message()
	m = m[:runeCut(m, n+scrubMargin)]
	var c string
	switch cause := e.Cause().(type) {
	case nil:
	case *errs.Error:
		c = causeText(cause, n)
	default:
		t := errorText(cause)
		c = t[:runeCut(t, n+scrubMargin)]
	}
	switch {
	case c == "" || strings.HasPrefix(m, c):
		if m == "" {
			return e.Code().String()
		}
		return m
	case m == "":
		return c
	}
	return m + ": " + c
}
