package obs

import (
	"log/slog"
	"strconv"
	"strings"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/redact"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
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
	// OutcomeTaskCreated: the call was admitted and became a task; its
	// work ends later, with a line of its own carrying the same task id.
	OutcomeTaskCreated Outcome = "task_created"
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
	// Authz is the authorization decision, when a policy made one.
	Authz *Authz
	// TaskID is the id of the task the call created or whose work ended,
	// "" for a call answered in place.
	TaskID string
	// Cache is how the call cache served the call (hit, miss, joined), ""
	// when it did not look.
	Cache string
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
// whole. Each thing is said once (mergeCause): a message worded from its
// cause (errs.FromStatus, a handler's words in front of errs' sentence, an
// error the model read scrubbed) does not repeat it.
func causeText(e *errs.Error, n int) string {
	if e == nil {
		return ""
	}
	m := e.Message()
	m = m[:redact.RuneCut(m, n+redact.ScrubMargin)]
	c := wrappedText(e, n)
	switch {
	case c == "" || strings.HasPrefix(m, c):
		if m == "" {
			return e.Code().String()
		}
		return m
	case m == "":
		return c
	}
	return mergeCause(m, c)
}

// wrappedText is the text of what e wraps, cut like causeText's; "" when
// e wraps nothing.
func wrappedText(e *errs.Error, n int) string {
	switch cause := e.Unwrap().(type) {
	case nil:
		return ""
	case *errs.Error:
		return causeText(cause, n)
	default:
		t := redact.ErrorText(cause)
		return t[:redact.RuneCut(t, n+redact.ScrubMargin)]
	}
}

// mergeCause joins a message and its cause, each a chain of ": "-separated
// parts, saying each part once: a part of the cause that is a part of the
// message, or that the message shows scrubbed (the same words around
// "[host]", "[stack]" or "[REDACTED]"), takes the message part's place in
// its own words (the operator may read the address), and the other parts of
// the cause follow the message's. "failed to get issue: the upstream service
// refused the connection" with its cause "failed to get issue: Get …:
// connection refused" reads "failed to get issue: the upstream service
// refused the connection: Get …: connection refused".
func mergeCause(m, c string) string {
	mp, cp := strings.Split(m, ": "), strings.Split(c, ": ")
	used := make([]bool, len(cp))
	next := 0 // cause parts match in order
	for i, p := range mp {
		for j := next; j < len(cp); j++ {
			if sameWords(p, cp[j]) {
				mp[i], used[j], next = cp[j], true, j+1
				break
			}
		}
	}
	if next == 0 {
		return m + ": " + c
	}
	out := mp
	for j, p := range cp {
		if !used[j] {
			out = append(out, p)
		}
	}
	return strings.Join(out, ": ")
}

// sameWords reports whether shown is text, or text with spans replaced by
// the scrubber's marks.
func sameWords(shown, text string) bool {
	if shown == text {
		return true
	}
	if !strings.Contains(shown, "[") {
		return false
	}
	pieces := splitMarks(make([]string, 0, 8), shown)
	if len(pieces) < 2 || !strings.HasPrefix(text, pieces[0]) || !strings.HasSuffix(text, pieces[len(pieces)-1]) {
		return false
	}
	rest := text[len(pieces[0]):]
	for _, p := range pieces[1 : len(pieces)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return len(rest) >= len(pieces[len(pieces)-1])
}

// splitMarks splits shown at every mark redaction puts in text, into
// pieces (empty; given by the caller, so that it stays on its stack).
func splitMarks(pieces []string, shown string) []string {
	pieces = append(pieces, shown)
	for _, mark := range [...]string{redact.HostMark, redact.StackMark, redact.Redacted} {
		var split []string
		for _, p := range pieces {
			split = append(split, strings.Split(p, mark)...)
		}
		pieces = split
	}
	return pieces
}
