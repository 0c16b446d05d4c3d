package logline

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// jsonLine writes New's JSON lines: the bytes slog.JSONHandler
// writes for the same record (with HandlerOptions{Level} only), without
// its allocations. JSONHandler boxes every float and json.RawMessage and
// sends them through encoding/json; a call's line has a duration and the
// arguments, so that was every line. A record holding anything jsonLine
// does not write itself (a value of another type, a float that is not a
// number, a time outside years 0–9999) goes to JSONHandler whole, so the
// output never differs. prefix is the attributes of WithAttrs, written.
type jsonLine struct {
	prefix []byte
}

// linePool holds the buffers of lines being written.
var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// compactPool holds the buffers json.Compact writes raw JSON into.
var compactPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledLine is the largest buffer put back into linePool.
const maxPooledLine = 16 << 10

// write writes r as one line to w under mu; ok is false, and nothing is
// written, when r holds something it does not write itself.
func (j *jsonLine) write(mu *sync.Mutex, w io.Writer, r slog.Record) (ok bool, err error) {
	return j.writeLine(mu, w, r.Time, r.Level, r.Message, nil, &r)
}

// writeLine writes the line of a record with time t, level, msg and the
// attributes attrs, or r's when r is not nil.
func (j *jsonLine) writeLine(mu *sync.Mutex, w io.Writer, t time.Time, level slog.Level, msg string, attrs []slog.Attr, r *slog.Record) (ok bool, err error) {
	bp := linePool.Get().(*[]byte)
	b := (*bp)[:0]
	defer func() {
		if cap(b) <= maxPooledLine {
			*bp = b[:0]
			linePool.Put(bp)
		}
	}()
	b = append(b, '{')
	if b, ok = appendTimeField(b, t); !ok {
		return false, nil
	}
	b = append(b, `"level":`...)
	b = AppendString(b, level.String())
	b = append(b, `,"msg":`...)
	b = AppendString(b, msg)
	if len(j.prefix) > 0 {
		b = append(b, ',')
		b = append(b, j.prefix...)
	}
	if b, ok = appendLineAttrs(b, r, attrs); !ok {
		return false, nil
	}
	b = append(b, "}\n"...)
	mu.Lock()
	_, err = w.Write(b)
	mu.Unlock()
	return true, err
}

// appendTimeField appends the line's time, unless t is zero; ok is false
// for a year RFC 3339 cannot write.
func appendTimeField(b []byte, t time.Time) (_ []byte, ok bool) {
	if t.IsZero() {
		return b, true
	}
	t = t.Round(0)
	if y := t.Year(); y < 0 || y >= 10000 {
		return b, false
	}
	b = append(b, `"time":"`...)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, `",`...), true
}

// appendLineAttrs appends the attributes of r (if not nil), then attrs;
// ok is false when one cannot be written as slog's JSONHandler would.
func appendLineAttrs(b []byte, r *slog.Record, attrs []slog.Attr) (_ []byte, ok bool) {
	ok = true
	if r != nil {
		r.Attrs(func(a slog.Attr) bool {
			b, _, ok = appendJSONAttr(b, a, true)
			return ok
		})
	}
	for _, a := range attrs {
		if b, _, ok = appendJSONAttr(b, a, true); !ok {
			break
		}
	}
	return b, ok
}

// appendJSONAttr appends a as slog.JSONHandler's handleState.appendAttr
// does, with a separator before it when sep; wrote says whether anything
// was appended (JSONHandler's result, which elides empty groups), ok is
// false when a holds something jsonLine does not write.
func appendJSONAttr(b []byte, a slog.Attr, sep bool) (_ []byte, wrote, ok bool) {
	switch a.Value.Kind() {
	case slog.KindString, slog.KindInt64, slog.KindFloat64, slog.KindBool:
		// Most of a line: nothing to resolve, elide or look into.
		b, ok = appendJSONMember(b, a.Key, a.Value, sep)
		return b, true, ok
	}
	v := a.Value.Resolve()
	switch {
	case a.Key == "" && v.Kind() == slog.KindAny && v.Any() == nil:
		return b, false, true // an empty Attr is elided
	case v.Kind() == slog.KindGroup:
		return appendJSONGroup(b, a.Key, v.Group(), sep)
	case isSource(v):
		return b, false, false
	}
	b, ok = appendJSONMember(b, a.Key, v, sep)
	return b, true, ok
}

// appendJSONMember appends "key":v, after a comma when sep.
func appendJSONMember(b []byte, key string, v slog.Value, sep bool) ([]byte, bool) {
	if sep {
		b = append(b, ',')
	}
	b = AppendString(b, key)
	b = append(b, ':')
	return appendJSONValue(b, v)
}

// appendJSONGroup appends a group's members as JSONHandler does: as an
// object under key, or inline when key is empty; results as
// appendJSONAttr's.
func appendJSONGroup(b []byte, key string, attrs []slog.Attr, sep bool) (_ []byte, wrote, ok bool) {
	if len(attrs) == 0 {
		return b, true, true
	}
	pos := len(b)
	if key != "" {
		if sep {
			b = append(b, ',')
		}
		b = AppendString(b, key)
		b = append(b, ":{"...)
		sep = false
	}
	b, some, ok := appendMembers(b, attrs, sep)
	if !ok {
		return b, false, false
	}
	if !some {
		// JSONHandler drops the group and, with it, the separator
		// before the next attribute: its own output, not ours.
		return b[:pos], false, false
	}
	if key != "" {
		b = append(b, '}')
	}
	return b, true, true
}

// appendMembers appends the members of a group; some says whether it
// wrote any (an empty attribute writes nothing).
func appendMembers(b []byte, attrs []slog.Attr, sep bool) (_ []byte, some, ok bool) {
	for _, g := range attrs {
		var w bool
		if b, w, ok = appendJSONAttr(b, g, sep); !ok {
			return b, false, false
		}
		if w {
			some, sep = true, true
		}
	}
	return b, some, true
}

// isSource reports whether v is a *slog.Source, which JSONHandler writes
// as a group of its own.
func isSource(v slog.Value) bool {
	if v.Kind() != slog.KindAny {
		return false
	}
	_, ok := v.Any().(*slog.Source)
	return ok
}

// appendJSONValue appends v as slog's appendJSONValue does, for the kinds
// and types jsonLine writes itself.
func appendJSONValue(b []byte, v slog.Value) ([]byte, bool) {
	switch v.Kind() {
	case slog.KindString:
		return AppendString(b, v.String()), true
	case slog.KindInt64:
		return strconv.AppendInt(b, v.Int64(), 10), true
	case slog.KindUint64:
		return strconv.AppendUint(b, v.Uint64(), 10), true
	case slog.KindFloat64:
		return appendJSONFloat(b, v.Float64())
	case slog.KindBool:
		return strconv.AppendBool(b, v.Bool()), true
	case slog.KindDuration:
		return strconv.AppendInt(b, int64(v.Duration()), 10), true
	case slog.KindTime:
		return appendJSONTime(b, v.Time())
	case slog.KindAny:
		return appendJSONAny(b, v.Any())
	}
	return b, false
}

// appendJSONTime appends t quoted in RFC 3339 with nanoseconds; false
// for a year JSONHandler reports as an error.
func appendJSONTime(b []byte, t time.Time) ([]byte, bool) {
	if y := t.Year(); y < 0 || y >= 10000 {
		return b, false
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), true
}

// appendJSONAny appends the values of KindAny that jsonLine writes
// itself; false for any other.
func appendJSONAny(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case *CompactJSON:
		return append(b, *x...), true
	case Appender:
		return x.AppendLineJSON(b), true
	case json.RawMessage:
		return appendRawJSON(b, x)
	case json.Marshaler:
		return b, false
	case error:
		return AppendString(b, x.Error()), true
	}
	return b, false
}

// appendJSONFloat appends f as encoding/json writes a float64 (which is
// what JSONHandler calls), false for NaN and infinities, which JSONHandler
// reports as an error.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if n, ok := thousandths(f); ok {
		return appendThousandths(b, n), true
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		return trimExponentZero(strconv.AppendFloat(b, f, 'e', -1, 64)), true
	}
	return strconv.AppendFloat(b, f, 'f', -1, 64), true
}

// thousandths returns f as a whole number of thousandths (a duration in
// milliseconds from microseconds) when it is one, below 2^33: there the
// float's spacing is under 2e-6, so its shortest form is those
// thousandths, which appendThousandths writes without the shortest-float
// search. Negative zero is left to strconv, which writes it as -0.
func thousandths(f float64) (int64, bool) {
	if !(f >= 0 && f < 1<<33) || math.Signbit(f) {
		return 0, false
	}
	n := int64(math.Round(f * 1000))
	return n, float64(n)/1000 == f
}

// appendThousandths appends n thousandths as a decimal with no trailing
// zero: 437 as 0.437, 1500 as 1.5, 2000 as 2.
func appendThousandths(b []byte, n int64) []byte {
	b = strconv.AppendInt(b, n/1000, 10)
	frac := n % 1000
	if frac == 0 {
		return b
	}
	digits := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	end := 3
	for digits[end-1] == '0' {
		end--
	}
	b = append(b, '.')
	return append(b, digits[:end]...)
}

// trimExponentZero cleans up e-09 to e-9, as encoding/json does.
func trimExponentZero(b []byte) []byte {
	n := len(b)
	if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

// appendRawJSON appends raw JSON compacted, as encoding/json marshals a
// json.RawMessage without HTML escaping; false when it is not valid JSON.
func appendRawJSON(b []byte, raw json.RawMessage) ([]byte, bool) {
	if raw == nil {
		return append(b, "null"...), true
	}
	buf := compactPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledLine {
			compactPool.Put(buf)
		}
	}()
	if json.Compact(buf, raw) != nil {
		return b, false
	}
	return append(b, buf.Bytes()...), true
}

// AppendString appends s quoted and escaped as slog's JSON handler
// escapes it: encoding/json's escapes without HTML's, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 escaped.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0 // s[start:i] is plain, not yet appended
	for i := 0; i < len(s); {
		if i+8 <= len(s) && plain8(s[i:i+8]) {
			i += 8
			continue
		}
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = appendEscapedByte(append(b, s[start:i]...), c)
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if esc := runeEscape(r, size); esc != "" {
			b = append(append(b, s[start:i]...), esc...)
			start = i + size
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendEscapedByte appends the escape of an ASCII byte JSON does not
// write as it is: a quote, a backslash or a control character.
func appendEscapedByte(b []byte, c byte) []byte {
	const hex = "0123456789abcdef"
	switch c {
	case '\\', '"':
		return append(b, '\\', c)
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
}

// runeEscape is how slog's JSON handler writes the rune r of size bytes:
// invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped; "" for a rune
// written as it is.
func runeEscape(r rune, size int) string {
	switch {
	case r == utf8.RuneError && size == 1:
		return `\ufffd`
	case r == '\u2028':
		return `\u2028`
	case r == '\u2029':
		return `\u2029`
	}
	return ""
}

// plain8 reports whether the 8 bytes of s are ASCII that JSON writes as
// they are (no control character, quote or backslash), all eight at once:
// the bytes of a word minus 0x20 borrow, and those XORed with '"' or '\\'
// become zero, only where one is not plain, which sets its high bit.
func plain8(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	q, bs := x^(ones*'"'), x^(ones*'\\')
	return (x|(x-ones*0x20)|(q-ones)&^q|(bs-ones)&^bs)&highs == 0
}

// withAttrs returns the jsonLine of a handler given attrs, nil when they
// hold something jsonLine does not write.
func (j *jsonLine) withAttrs(attrs []slog.Attr) *jsonLine {
	p := append([]byte(nil), j.prefix...)
	sep := len(p) > 0
	for _, a := range attrs {
		var wrote, ok bool
		if p, wrote, ok = appendJSONAttr(p, a, sep); !ok {
			return nil
		}
		sep = sep || wrote
	}
	return &jsonLine{prefix: p}
}

// CompactJSON is JSON known to be valid and compact, which the JSON lines
// of New hold as it is; any handler marshalling it gets the same bytes.
type CompactJSON []byte

// MarshalJSON returns the JSON.
func (j *CompactJSON) MarshalJSON() ([]byte, error) { return *j, nil }

// Appender is a value that writes its own JSON into a line of New, without
// being marshalled; its MarshalJSON must give the same bytes, for any
// other handler.
type Appender interface {
	json.Marshaler
	// AppendLineJSON appends the value's JSON to b.
	AppendLineJSON(b []byte) []byte
}

// lockedWriter is the writer of the JSONHandler behind jsonLine: its
// writes take the lock jsonLine's do, so that lines of both never
// interleave on a writer that is not safe for concurrent use.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
