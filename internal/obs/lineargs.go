package obs

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/internal/logline"
	"github.com/mcpwrap/mcpwrap/internal/redact"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
)

// argumentsAttr is the line's arguments, b, in the form the handler
// writes cheapest, with the same bytes: NewLogger's JSON handler takes JSON
// this Recording rendered as it is (no compaction, no boxing of the
// slice); slog's JSONHandler takes arguments by name (a flat object of
// plain strings) as a group, which it writes itself instead of through
// encoding/json; any other handler gets json.RawMessage.
func (c *Recording) argumentsAttr(h slog.Handler, b []byte) slog.Attr {
	if c.argState == argsOwn {
		if logline.WritesJSON(h) {
			return slog.Any(semconv.KeyArguments, (*logline.CompactJSON)(&c.rawArgs))
		}
		if _, ok := h.(*slog.JSONHandler); ok {
			if v, ok := flatGroup(b); ok {
				return slog.Attr{Key: semconv.KeyArguments, Value: v}
			}
		}
	}
	return slog.Any(semconv.KeyArguments, json.RawMessage(b))
}

// namedArgs is a Recording seen as its arguments by name through the
// tool's key order (named), which NewLogger's JSON handler writes straight
// into its line (no group, no attribute per argument) and any other
// handler marshals to the same bytes: {"key":"<string, 5 bytes>",...},
// the keys sorted. It is the Recording itself, so that the line's value
// costs no allocation and the Recording no more bytes.
type namedArgs Recording

// AppendLineJSON appends the arguments' JSON; when a remembered key is
// missing (the client sent other keys, as many), it appends what the line
// would hold without the key order instead.
func (a *namedArgs) AppendLineJSON(b []byte) []byte {
	if b, ok := a.named.appendJSON(b, a.args.(map[string]any)); ok {
		return b
	}
	return (*Recording)(a).appendRendered(b)
}

// appendRendered appends the arguments as the line holds them when they
// are rendered (arguments): JSON as it is, or capped text as a string.
func (c *Recording) appendRendered(b []byte) []byte {
	if j, text := c.arguments(); j != nil {
		return append(b, j...)
	} else {
		return logline.AppendString(b, text)
	}
}

// maxSizeText is the longest text appendSizeOf writes: "<string, " and
// " bytes>" around a length of 19 digits.
const maxSizeText = len("<string, ") + 19 + len(" bytes>")

// MarshalJSON returns the arguments' JSON, for a handler other than
// NewLogger's.
func (a *namedArgs) MarshalJSON() ([]byte, error) { return a.AppendLineJSON(nil), nil }

// namedArguments is the arguments by name, without rendering them, for a
// handler that writes them itself: ok is false when their JSON must be
// rendered: the mode is not names, the tool has no key order, the cap
// would cut it, there is nothing to log, or it was rendered already.
func (c *Recording) namedArguments() (_ *namedArgs, ok bool) {
	if c.argState != argsPending || c.args == nil || c.o.cfg.maxArgBytes <= 0 || c.anyTool || c.o.keyOrders == nil ||
		c.o.cfg.argMode(c.tool) != argsNames {
		return nil, false
	}
	m, isMap := c.args.(map[string]any)
	if !isMap || len(m) == 0 {
		return nil, false
	}
	ko := c.o.keyOrders.order(c.o.red, c.tool, m)
	if ko == nil {
		return nil, false
	}
	if !ko.fits(m, c.o.cfg.maxArgBytes) {
		return nil, false
	}
	c.named = ko
	return (*namedArgs)(c), true
}

// fits reports whether the JSON ko renders of m has all of ko's keys and
// is no longer than limit bytes.
func (ko *keyOrder) fits(m map[string]any, limit int) bool {
	n := ko.size - 1 // the rendered JSON's length: ko.size counts one comma too many
	if n+maxSizeText*len(ko.keys) <= limit {
		// Within the cap whatever the values: appendJSON looks them up
		// once, as it writes them.
		return true
	}
	var scratch [64]byte
	for i, key := range ko.keys {
		v, present := m[key]
		if !present {
			return false
		}
		if ko.secret[i] {
			n += len(redact.Redacted)
		} else {
			n += len(appendSizeOf(scratch[:0], v))
		}
	}
	return n <= limit
}

// argumentsGroup is the arguments by name as a group, for slog's
// JSONHandler, which writes a group itself instead of through
// encoding/json: the members the JSON would render to, in the tool's key
// order, without rendering it (ok as namedArguments').
func (c *Recording) argumentsGroup() (slog.Value, bool) {
	a, ok := c.namedArguments()
	if !ok {
		return slog.Value{}, false
	}
	ko, m := a.named, a.args.(map[string]any)
	attrs := make([]slog.Attr, len(ko.keys))
	for i, key := range ko.keys {
		v, present := m[key]
		if !present {
			return slog.Value{}, false
		}
		s := redact.Redacted
		if !ko.secret[i] {
			s = sizeText(v)
		}
		attrs[i] = slog.String(key, s)
	}
	return slog.GroupValue(attrs...), true
}

// lineArguments is the arguments by name in the form the handler writes
// cheapest: NewLogger's JSON handler writes namedArgs itself, slog's
// JSONHandler a group; ok is false for any other handler, or when
// namedArguments' is.
func (c *Recording) lineArguments(h slog.Handler) (slog.Value, bool) {
	if _, ok := h.(*slog.JSONHandler); ok {
		return c.argumentsGroup()
	}
	if logline.WritesJSON(h) {
		if a, ok := c.namedArguments(); ok {
			return slog.AnyValue(a), true
		}
	}
	return slog.Value{}, false
}

// sizeText is string(appendSizeOf(nil, v)), from sizeTexts or sizeOf's
// constants when it can.
func sizeText(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) < len(sizeTexts.str) {
			return sizeTexts.str[len(x)]
		}
	case []any:
		if len(x) < len(sizeTexts.arr) {
			return sizeTexts.arr[len(x)]
		}
	case map[string]any:
		if len(x) < len(sizeTexts.obj) {
			return sizeTexts.obj[len(x)]
		}
	}
	return sizeOf(v)
}

// sizeTexts are the texts of the common sizes, built once at start and
// never written again, so that a line's arguments cost no formatting.
var sizeTexts = func() (t struct{ str, arr, obj [256]string }) {
	for i := range t.str {
		t.str[i] = string(appendSizeOf(nil, strings.Repeat(" ", i)))
		t.arr[i] = string(appendSizeOf(nil, make([]any, i)))
		t.obj[i] = "<object, " + strconv.Itoa(i) + " keys>"
	}
	return t
}()

// flatGroup returns b, a JSON object whose values are strings and which
// holds no escape (the arguments by name, with keys JSONHandler writes as
// they are), as a group of its members, which slog's JSONHandler writes
// as the same bytes; ok is false for anything else, and for {}, a group
// JSONHandler would leave out.
func flatGroup(b []byte) (slog.Value, bool) {
	if len(b) < 2 || b[0] != '{' || b[1] != '"' || bytes.IndexByte(b, '\\') >= 0 {
		return slog.Value{}, false
	}
	quotes := bytes.Count(b, []byte{'"'})
	if quotes%4 != 0 {
		return slog.Value{}, false
	}
	s := string(b)
	attrs := make([]slog.Attr, 0, quotes/4)
	i := 1
	for i < len(s) && s[i] == '"' {
		key, value, next, ok := flatMember(s, i)
		if !ok {
			return slog.Value{}, false
		}
		attrs = append(attrs, slog.String(key, value))
		i = next
	}
	if i != len(s)-1 || s[i] != '}' || len(attrs) != quotes/4 {
		return slog.Value{}, false
	}
	return slog.GroupValue(attrs...), true
}

// flatMember reads the member "key":"value" whose key opens at s[i]; next
// is where the member after it opens (past its comma), or where the
// object closes.
func flatMember(s string, i int) (key, value string, next int, ok bool) {
	k := strings.IndexByte(s[i+1:], '"') + i + 1 // the key's closing quote
	if k+2 >= len(s) || s[k+1] != ':' || s[k+2] != '"' {
		return "", "", 0, false
	}
	v := strings.IndexByte(s[k+3:], '"') + k + 3 // the value's closing quote
	if v < k+3 {
		return "", "", 0, false
	}
	next = v + 1
	if next+1 < len(s) && s[next] == ',' && s[next+1] == '"' {
		next++
	}
	return s[i+1 : k], s[k+3 : v], next, true
}

// traceIDText is a span's trace and span id in hex, one after the other:
// one string, one allocation, for both.
func traceIDText(sc trace.SpanContext) string {
	tid, sid := sc.TraceID(), sc.SpanID()
	var b [2 * (len(trace.TraceID{}) + len(trace.SpanID{}))]byte
	hex.Encode(b[:], tid[:])
	hex.Encode(b[2*len(tid):], sid[:])
	return string(b[:])
}

// appendTraceIDs appends the ids of the call's span, which openSpan wrote
// into c.traceIDs once for all the call's lines.
func (c *Recording) appendTraceIDs(attrs []slog.Attr) []slog.Attr {
	if c.traceIDs == "" {
		return appendTraceIDs(attrs, c.span)
	}
	n := 2 * len(trace.TraceID{})
	return append(attrs, slog.String(semconv.KeyTraceID, c.traceIDs[:n]), slog.String(semconv.KeySpanID, c.traceIDs[n:]))
}
