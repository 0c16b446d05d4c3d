package errs

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Call identifies the tool call an error result answers.
type Call struct {
	// Tool is the tool's name.
	Tool string
	// ID is the call id that ties the result to the operator's log line.
	ID string
	// Attempts is how many times the handler ran; 0 means not counted.
	Attempts int
	// SideEffects says, for a failed call that was not retried because the
	// tool is not known to be safe to repeat, whether the operation may have
	// happened. SideEffectsUnknown says nothing.
	SideEffects SideEffects
}

// Info is the machine-readable error in a result's structuredContent, under
// the key "error". Clients decode it with InfoOf.
type Info struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Retryable says whether repeating the call may succeed (not whether it
	// is safe: that depends on the tool).
	Retryable         bool   `json:"retryable"`
	RetryAfterSeconds int64  `json:"retryAfterSeconds,omitempty"`
	CallID            string `json:"callId,omitempty"`
	Tool              string `json:"tool,omitempty"`
	Attempts          int    `json:"attempts,omitempty"`
	// SideEffects is "none" or "possible" when the call was not retried
	// because the tool may change something (see Call.SideEffects).
	SideEffects string      `json:"sideEffects,omitempty"`
	Violations  []Violation `json:"violations,omitempty"`
}

// envelope is the structuredContent object: {"error": {...}}.
type envelope struct {
	Error Info `json:"error"`
}

// ToResult is the one place an error becomes a tool result. The result has
// isError true, one text content the model can act on and a structuredContent
// {"error": Info}. Messages of Internal and Fatal errors, and of standard
// errors that classify as neither, are never shown: the model gets a generic
// sentence with the call id, the operator gets the cause from the log.
// ToResult(nil, …) describes an internal error: a nil error is not a result.
func ToResult(err error, call Call) *mcp.CallToolResult {
	e := From(err)
	if e == nil {
		e = &Error{code: Internal}
	}
	info := Info{
		Code:        e.code.String(),
		Message:     strings.ToValidUTF8(modelMessage(e, call), "\uFFFD"),
		Retryable:   e.code.Retryable(),
		CallID:      call.ID,
		Tool:        call.Tool,
		Attempts:    call.Attempts,
		SideEffects: call.SideEffects.String(),
		Violations:  e.violations,
	}
	if e.retryAfter > 0 {
		info.RetryAfterSeconds = int64((e.retryAfter + time.Second - 1) / time.Second)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{mcp.NewTextContent(info.Message)},
		StructuredContent: envelope{Error: info},
		IsError:           true,
	}
}

// modelMessage builds the sentence the model reads.
func modelMessage(e *Error, call Call) string {
	var b strings.Builder
	tool := call.Tool
	if tool == "" {
		tool = "the tool"
	} else {
		tool = "tool " + strconv.Quote(tool)
	}
	switch e.code {
	case Internal:
		b.WriteString("internal error in " + tool)
		writeCallID(&b, call.ID)
		b.WriteString("; the details are in the server log")
		return b.String()
	case Fatal:
		b.WriteString("the server hit a fatal error in " + tool + " and is shutting down")
		writeCallID(&b, call.ID)
		b.WriteString("; do not retry this call on this server.")
		return b.String()
	case InvalidArgument:
		b.WriteString("invalid arguments for " + tool + ": ")
	}
	msg := e.msg
	if msg == "" && len(e.violations) > 0 {
		parts := make([]string, len(e.violations))
		for i, v := range e.violations {
			parts[i] = v.Message
		}
		msg = strings.Join(parts, "; ")
	}
	if msg == "" {
		msg = defaultMessage(e.code)
	}
	b.WriteString(msg)
	switch {
	case e.retryAfter > 0:
		b.WriteString("; retry after " + e.retryAfter.Round(time.Millisecond).String())
	case e.code == Unavailable:
		b.WriteString("; retrying later may help")
	}
	if call.Attempts > 1 {
		b.WriteString(" (after " + strconv.Itoa(call.Attempts) + " attempts)")
	}
	switch call.SideEffects {
	case SideEffectsNone:
		b.WriteString("; the request did not reach the upstream, so nothing was done")
	case SideEffectsPossible:
		b.WriteString("; not retried automatically because " + tool +
			" is not marked read-only or idempotent: the operation may have happened, check before calling it again")
	}
	return b.String()
}

func writeCallID(b *strings.Builder, id string) {
	if id != "" {
		b.WriteString(" (call id " + id + ")")
	}
}

func defaultMessage(c Code) string {
	switch c {
	case InvalidArgument:
		return "the arguments are not valid"
	case NotFound:
		return "not found"
	case PermissionDenied:
		return "permission denied"
	case Conflict:
		return "the request conflicts with the current state"
	case Unavailable:
		return "the upstream service is unavailable"
	case Timeout:
		return "the operation timed out; it may still complete upstream"
	case RateLimited:
		return "rate limit reached"
	case Canceled:
		return "the request was cancelled"
	}
	return "error"
}

// InfoOf reads the Info that ToResult put into a result, whether the result
// was built in process or decoded from the wire by an mcp-go client.
func InfoOf(res *mcp.CallToolResult) (Info, bool) {
	if res == nil || !res.IsError {
		return Info{}, false
	}
	switch sc := res.StructuredContent.(type) {
	case envelope:
		return sc.Error, true
	case nil:
		return Info{}, false
	default:
		raw, err := json.Marshal(sc)
		if err != nil {
			return Info{}, false
		}
		var env envelope
		if json.Unmarshal(raw, &env) != nil || env.Error.Code == "" {
			return Info{}, false
		}
		return env.Error, true
	}
}
