package errmap

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpwrap/mcpwrap/errs"
)

// Call identifies the tool call an error result answers.
type Call struct {
	// Tool is the tool's name.
	Tool string
	// Subject names what the call acted on in the model's sentence, for
	// requests that are not tool calls (`resource "file:///a"`); empty
	// means the tool Tool.
	Subject string
	// ID is the call id that ties the result to the operator's log line.
	ID string
	// Attempts is how many times the handler ran; 0 means not counted.
	Attempts int
	// SideEffects says, for a failed call that was not retried because the
	// tool is not known to be safe to repeat, whether the operation may have
	// happened. SideEffectsUnknown says nothing.
	SideEffects SideEffects
	// Shown, when set, is what the model reads in place of the sentence
	// ToResult would write: the scrubbed text of a plain error the server
	// lets the model read. The call id follows it, as it follows a masked
	// error's sentence: the error is still the operator's to look up.
	Shown string
}

// The bounds of a result built by ToResult, whatever the error holds: the
// whole result, JSON-encoded, stays under MaxResultBytes.
const (
	// MaxResultBytes bounds the JSON encoding of a ToResult result.
	MaxResultBytes = 16 << 10
	// MaxViolations is the most violations a result lists.
	MaxViolations = 20
)

// Encoded-size budgets (bytes once JSON-escaped) whose sum, with the fixed
// parts of the result, stays under MaxResultBytes. The text is sent twice:
// as the text content and as Info.Message.
const (
	maxMessageBytes    = 3 << 10 // the error's own message within the text
	maxTextBytes       = 4 << 10 // the whole text, with tool name and advice
	maxViolationsBytes = 6 << 10
	maxNameBytes       = 128 // tool name, call id
	maxParameterBytes  = 256
	maxRuleBytes       = 64
	maxExpectedBytes   = 512
	maxGotBytes        = 256
	maxViolationMsg    = 1 << 10
)

// envelope is the structuredContent object of an error result:
// {"error": {...}}.
type envelope struct {
	Error errs.Info `json:"error"`
}

// Result is an error result in no SDK's types: what an adapter sends as a
// result with isError true, one text content Text and, when Info.Code is
// set, structuredContent envelope{Info}.
type Result struct {
	Text string
	Info errs.Info
}

// Structured returns the result's structuredContent: envelope{Info}, or nil
// for a result made of text only.
func (r *Result) Structured() any {
	if r.Info.Code == "" {
		return nil
	}
	return envelope{Error: r.Info}
}

// ToResult is the one place an error becomes a tool result. The result has
// isError true, one text content the model can act on and a structuredContent
// {"error": Info}, whose CallID is the call's id, whatever the error.
// Messages of Internal and Fatal errors, and of standard errors that
// classify as neither, are never shown: the model gets a generic sentence
// with the call id (or the text Call.Shown, with the call id), the operator
// gets the cause from the log.
// ToResult(nil, …) describes an internal error: a nil error is not a result.
func ToResult(err error, call Call) *Result {
	e := errs.From(err)
	if e == nil {
		e = internalError
	}
	call.Tool = clipJSON(call.Tool, maxNameBytes)
	call.ID = clipJSON(call.ID, maxNameBytes)
	all := e.Violations()
	viols, omitted := listed(all)
	omitted += e.Omitted()
	var msg string
	if call.Shown != "" {
		msg = shownMessage(call)
	} else {
		msg = modelMessage(e, all, call, len(viols), omitted)
	}
	info := errs.Info{
		Code:              e.Code().String(),
		Message:           clipJSON(msg, maxTextBytes),
		Retryable:         e.Code().Retryable() && call.SideEffects.repeatable(),
		CallID:            call.ID,
		Tool:              call.Tool,
		Attempts:          call.Attempts,
		SideEffects:       call.SideEffects.String(),
		Violations:        viols,
		OmittedViolations: omitted,
	}
	if ra := e.RetryAfter(); ra > 0 {
		info.RetryAfterSeconds = int64((ra + time.Second - 1) / time.Second)
	}
	return &Result{Text: info.Message, Info: info}
}

// internalError stands for a nil error: a nil error is not a result.
var internalError = errs.New(errs.Internal, "")

// shownMessage is a shown plain error's text and the call id, the text
// clipped so that the id is never cut off.
func shownMessage(call Call) string {
	var b strings.Builder
	b.WriteString(clipJSON(call.Shown, maxTextBytes-maxNameBytes-16))
	writeCallID(&b, call.ID)
	return b.String()
}

// modelMessage builds the sentence the model reads. When the error has no
// message of its own, it is made of the first shown violations' messages
// and says how many more there are.
func modelMessage(e *errs.Error, viols []errs.Violation, call Call, shown, omitted int) string {
	var b strings.Builder
	tool := toolPhrase(call)
	code := e.Code()
	switch code {
	case errs.Internal:
		b.WriteString("internal error in " + tool)
		writeCallID(&b, call.ID)
		b.WriteString("; the details are in the server log")
		return b.String()
	case errs.Fatal:
		b.WriteString("the server hit a fatal error in " + tool + " and is shutting down")
		writeCallID(&b, call.ID)
		b.WriteString("; do not retry this call on this server.")
		return b.String()
	case errs.InvalidArgument:
		b.WriteString("invalid arguments for " + tool + ": ")
	}
	msg := clipJSON(ownMessage(e, viols, shown, omitted), maxMessageBytes)
	ra := e.RetryAfter()
	if clausesFollow(ra, code, call) {
		msg = openEnd(msg) // one sentence, not "done.; retry"
	}
	b.WriteString(msg)
	writeRetryClauses(&b, ra, code, call.Attempts)
	writeSideEffects(&b, call, tool, code)
	return b.String()
}

// clausesFollow reports whether the message is followed by a clause
// about retrying or side effects.
func clausesFollow(ra time.Duration, code errs.Code, call Call) bool {
	return ra > 0 || code == errs.Unavailable || call.Attempts > 1 || call.SideEffects != SideEffectsUnknown
}

// toolPhrase names the tool (or the call's subject) in a sentence.
func toolPhrase(call Call) string {
	switch {
	case call.Subject != "":
		return clipJSON(call.Subject, maxNameBytes+16)
	case call.Tool == "":
		return "the tool"
	}
	return "tool " + strconv.Quote(call.Tool)
}

// ownMessage is the error's message, else its shown violations' messages
// (saying how many more there are), else its code's default sentence.
func ownMessage(e *errs.Error, viols []errs.Violation, shown, omitted int) string {
	msg := e.Message()
	if msg == "" && len(viols) > 0 {
		msg = violationsMessage(viols[:shown], omitted)
	}
	if msg == "" {
		msg = defaultMessage(e.Code())
	}
	return msg
}

// violationsMessage joins the messages of the violations shown, and says
// how many more were omitted.
func violationsMessage(shown []errs.Violation, omitted int) string {
	parts := make([]string, 0, len(shown)+1)
	for _, v := range shown {
		parts = append(parts, clipJSON(v.Message, maxViolationMsg))
	}
	if omitted > 0 {
		parts = append(parts, "and "+strconv.Itoa(omitted)+" more")
	}
	return strings.Join(parts, "; ")
}

// writeRetryClauses says when a retry may help and how many attempts were
// made.
func writeRetryClauses(b *strings.Builder, ra time.Duration, code errs.Code, attempts int) {
	switch {
	case ra > 0:
		b.WriteString("; retry after " + ra.Round(time.Millisecond).String())
	case code == errs.Unavailable:
		b.WriteString("; retrying later may help")
	}
	if attempts > 1 {
		b.WriteString(" (after " + strconv.Itoa(attempts) + " attempts)")
	}
}

// writeSideEffects says what the failed call may have done, and gives the
// call id where the operator's log line holds what the model did not get.
func writeSideEffects(b *strings.Builder, call Call, tool string, code errs.Code) {
	switch call.SideEffects {
	case SideEffectsNone:
		b.WriteString("; the request did not reach the upstream, so nothing was done")
	case SideEffectsPossible:
		b.WriteString("; not retried automatically because " + tool +
			" is not marked read-only or idempotent: the operation may have happened, check before calling it again")
	case SideEffectsHappened:
		b.WriteString("; its side effects happened: do not call it again to get the result, that would do it again; " +
			"use a tool that reads what it did instead")
		writeCallID(b, call.ID)
	default:
		if code == errs.ResultTooLarge { // a success the model did not get: the operator's line has it
			writeCallID(b, call.ID)
		}
	}
}

// openEnd drops the full stop that ends s, so that clauses can follow it
// ("…use another tool; the request did not reach…"); an ellipsis stays.
func openEnd(s string) string {
	t := strings.TrimRight(s, " ")
	if strings.HasSuffix(t, ".") && !strings.HasSuffix(t, "..") {
		return t[:len(t)-1]
	}
	return s
}

// listed returns the violations a result shows, each with its fields
// clipped, at most MaxViolations of them within maxViolationsBytes, and how
// many it leaves out.
func listed(vs []errs.Violation) ([]errs.Violation, int) {
	if len(vs) == 0 {
		return nil, 0
	}
	out := make([]errs.Violation, 0, min(len(vs), MaxViolations))
	budget := maxViolationsBytes
	for _, v := range vs {
		if len(out) == MaxViolations {
			break
		}
		c := errs.Violation{
			Parameter: clipJSON(v.Parameter, maxParameterBytes),
			Rule:      clipJSON(v.Rule, maxRuleBytes),
			Expected:  clipJSON(v.Expected, maxExpectedBytes),
			Got:       clipJSON(v.Got, maxGotBytes),
			Message:   clipJSON(v.Message, maxViolationMsg),
		}
		// Field names, quotes, colons and commas: under 64 bytes.
		size := 64 + jsonLen(c.Parameter) + jsonLen(c.Rule) + jsonLen(c.Expected) + jsonLen(c.Got) + jsonLen(c.Message)
		if size > budget {
			break
		}
		budget -= size
		out = append(out, c)
	}
	return out, len(vs) - len(out)
}

// clip returns s as valid UTF-8 whose JSON encoding is at most max bytes,
// cut on a character boundary and ending in "…" when it was cut.
func clipJSON(s string, max int) string {
	if len(s) <= max/6 || (len(s) <= max && jsonLen(s) <= max) {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	const ellipsis = "…"
	n, i := len(ellipsis), 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		w := runeJSONLen(r, size)
		if n+w > max {
			break
		}
		n += w
		i += size
	}
	if i == len(s) {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.ToValidUTF8(s[:i], "\uFFFD") + ellipsis
}

// jsonLen is the length of s once encoding/json has escaped it, quotes
// excluded, assuming the worst case of HTML escaping.
func jsonLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		n += runeJSONLen(r, size)
		i += size
	}
	return n
}

// runeJSONLen is the encoded length of one decoded rune of size bytes.
func runeJSONLen(r rune, size int) int {
	switch r {
	case '"', '\\', '\n', '\r', '\t', '\b', '\f':
		return 2 // \n
	case '<', '>', '&', '\u2028', '\u2029':
		return 6 // \u003c
	}
	if r < 0x20 || r == utf8.RuneError && size == 1 {
		return 6 // \u001f, \ufffd
	}
	return size
}

func writeCallID(b *strings.Builder, id string) {
	if id != "" {
		b.WriteString(" (call id " + id + ")")
	}
}

func defaultMessage(c errs.Code) string {
	if m, ok := defaultMessages[c]; ok {
		return m
	}
	return "error"
}

// defaultMessages are the messages of errors that have none, by code.
var defaultMessages = map[errs.Code]string{
	errs.InvalidArgument:  "the arguments are not valid",
	errs.NotFound:         "not found",
	errs.PermissionDenied: "permission denied",
	errs.Conflict:         "the request conflicts with the current state",
	errs.Unavailable:      "the upstream service is unavailable",
	errs.Timeout:          "the operation timed out; it may still complete upstream",
	errs.RateLimited:      "rate limit reached",
	errs.Canceled:         "the request was cancelled",
	errs.ResultTooLarge:   "the call succeeded, but its result was too large to send",
}

// InfoOf reads the Info that ToResult put into a result's
// structuredContent, whether the result was built in process (an envelope)
// or decoded from the wire by a client (a map, raw JSON).
func InfoOf(structured any) (errs.Info, bool) {
	switch sc := structured.(type) {
	case envelope:
		return sc.Error, true
	case *envelope:
		if sc == nil {
			return errs.Info{}, false
		}
		return sc.Error, true
	case nil:
		return errs.Info{}, false
	}
	return infoOfJSON(structured)
}

// infoOfJSON is InfoOf for structured content of another type: JSON, or
// a value that marshals to it.
func infoOfJSON(structured any) (errs.Info, bool) {
	raw, ok := structured.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(structured); err != nil {
			return errs.Info{}, false
		}
	}
	var env envelope
	if json.Unmarshal(raw, &env) != nil || env.Error.Code == "" {
		return errs.Info{}, false
	}
	return env.Error, true
}
