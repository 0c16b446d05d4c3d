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

// jsonLine writes NewLogger's JSON lines: the bytes slog.JSONHandler
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
	if !t.IsZero() {
		t = t.Round(0)
		if y := t.Year(); y < 0 || y >= 10000 {
			return false, nil
		}
		b = append(b, `"time":"`...)
		b = t.AppendFormat(b, time.RFC3339Nano)
		b = append(b, `",`...)
	}
	b = append(b, `"level":`...)
	b = AppendString(b, level.String())
	b = append(b, `,"msg":`...)
	b = AppendString(b, msg)
	if len(j.prefix) > 0 {
		b = append(b, ',')
		b = append(b, j.prefix...)
	}
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
	if !ok {
		return false, nil
	}
	b = append(b, "}\n"...)
	mu.Lock()
	_, err = w.Write(b)
	mu.Unlock()
	return true, err
}

// appendJSONAttr appends a as slog.JSONHandler's handleState.appendAttr
// does, with a separator before it when sep; wrote says whether anything
// was appended (JSONHandler's result, which elides empty groups), ok is
// false when a holds something jsonLine does not write.
func appendJSONAttr(b []byte, a slog.Attr, sep bool) (_ []byte, wrote, ok bool) {
	switch a.Value.Kind() {
	case slog.KindString, slog.KindInt64, slog.KindFloat64, slog.KindBool:
		// Most of a line: nothing to resolve, elide or look into.
		if sep {
			b = append(b, ',')
		}
		b = AppendString(b, a.Key)
		b = append(b, ':')
		b, ok = appendJSONValue(b, a.Value)
		return b, true, ok
	}
	a.Value = a.Value.Resolve()
	v := a.Value
	if a.Key == "" && v.Kind() == slog.KindAny && v.Any() == nil {
		return b, false, true // an empty Attr is elided
	}
	if v.Kind() == slog.KindGroup {
		attrs := v.Group()
		if len(attrs) == 0 {
			return b, true, true
		}
		pos := len(b)
		if a.Key != "" {
			if sep {
				b = append(b, ',')
			}
			b = AppendString(b, a.Key)
			b = append(b, ":{"...)
			sep = false
		}
		some := false
		for _, g := range attrs {
			var w bool
			if b, w, ok = appendJSONAttr(b, g, sep); !ok {
				return b, false, false
			}
			if w {
				some, sep = true, true
			}
		}
		if !some {
			// JSONHandler drops the group and, with it, the separator
			// before the next attribute: its own output, not ours.
			return b[:pos], false, false
		}
		if a.Key != "" {
			b = append(b, '}')
		}
		return b, true, true
	}
	if v.Kind() == slog.KindAny {
		if _, isSource := v.Any().(*slog.Source); isSource {
			return b, false, false
		}
	}
	if sep {
		b = append(b, ',')
	}
	b = AppendString(b, a.Key)
	b = append(b, ':')
	b, ok = appendJSONValue(b, v)
	return b, true, ok
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
		t := v.Time()
		if y := t.Year(); y < 0 || y >= 10000 {
			return b, false
		}
		b = append(b, '"')
		b = t.AppendFormat(b, time.RFC3339Nano)
		return append(b, '"'), true
	case slog.KindAny:
		switch x := v.Any().(type) {
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
	}
	return b, false
}

// appendJSONFloat appends f as encoding/json writes a float64 (which is
// what JSONHandler calls), false for NaN and infinities, which JSONHandler
// reports as an error.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if f >= 0 && f < 1<<33 && !math.Signbit(f) {
		// A whole number of thousandths (a duration in milliseconds from
		// microseconds): below 2^33 the float's spacing is under 2e-6, so
		// its shortest form is those thousandths, written here without
		// the shortest-float search. Negative zero is left to strconv,
		// which writes it as -0.
		if n := int64(math.Round(f * 1000)); float64(n)/1000 == f {
			b = strconv.AppendInt(b, n/1000, 10)
			if frac := n % 1000; frac != 0 {
				b = append(b, '.', byte('0'+frac/100))
				if frac %= 100; frac != 0 {
					b = append(b, byte('0'+frac/10))
					if frac %= 10; frac != 0 {
						b = append(b, byte('0'+frac))
					}
				}
			}
			return b, true
		}
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9, as encoding/json does
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
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
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
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
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
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
