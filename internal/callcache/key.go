// Package callcache is the machinery of wrap's call cache (wrap.WithCache):
// a call's key made of its caller, its name and its arguments in canonical
// form, in bounded time and memory; a bounded LRU of answers, by entries and
// bytes, with a share per caller; and the calls in flight that identical
// calls join. It knows nothing of MCP results: it keeps what it is given.
package callcache

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Bounds of what is keyed: arguments larger than MaxArgs bytes (as sent,
// or once in canonical form) or nested deeper than MaxDepth are not keyed,
// and their calls skip the cache, so that keying costs at most about
// MaxArgs bytes of work whatever a caller sends.
const (
	MaxArgs  = 64 << 10
	MaxDepth = 64
)

// Key is a call's key: the SHA-256 of its caller, its name and its
// arguments in canonical form. It holds no argument value and no
// credential.
type Key [sha256.Size]byte

// At is k for the generation gen (Kept.Gen): the key of a kept read's
// flight, so that a read after a write never joins one that began before
// it.
func (k Key) At(gen uint64) Key {
	for i := range 8 {
		k[i] ^= byte(gen >> (8 * i))
	}
	return k
}

// Seen is k for the generations of a shared store a call's lookup saw
// (Kept.Get): the key of its flight, so that a read that began after a
// write on another replica never joins one that began before it.
func (k Key) Seen(seen string) Key {
	if seen == "" {
		return k
	}
	h := sha256.Sum256([]byte(seen))
	for i := range 8 {
		k[8+i] ^= h[i]
	}
	return k
}

// String is the key in hex, its name in a shared store.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// Group is the SHA-256 of a name in hex, the name of the group of keys a
// shared store forgets at once (wrap's Forget).
func Group(name string) string {
	s := sha256.Sum256([]byte(name))
	return hex.EncodeToString(s[:16])
}

// KeyOf returns the key of a call by caller of the tool (or resource, as
// kind says) name with arguments args (as
// an SDK decoded them) or raw (as sent, read when args is nil). Objects are
// keyed whatever their key order, numbers by value (1, 1.0 and 1e0 are one
// number), white space not at all. ok is false, and the call is not to be
// cached, when the arguments are over the bounds or of a Go type JSON does
// not decode to.
func KeyOf(caller, kind, name string, args any, raw json.RawMessage) (k Key, ok bool) {
	var stack [512]byte
	w := writer{out: stack[:0], left: MaxArgs}
	w.str(caller)
	w.str(kind)
	w.str(name)
	if args == nil && len(raw) > 0 {
		if len(raw) > MaxArgs {
			return k, false
		}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if d.Decode(&args) != nil {
			return k, false
		}
	}
	if !w.value(args, 0) {
		return k, false
	}
	return sha256.Sum256(w.out), true
}

// writer writes a canonical form into out: each value a type byte and its
// text, strings with their length, so that no two values write the same
// bytes; left is the budget.
type writer struct {
	out  []byte
	left int
}

func (w *writer) spend(n int) bool {
	w.left -= n
	return w.left >= 0
}

func (w *writer) str(s string) bool {
	if !w.spend(len(s) + 8) {
		return false
	}
	w.out = append(strconv.AppendInt(append(w.out, 's'), int64(len(s)), 10), ':')
	w.out = append(w.out, s...)
	return true
}

func (w *writer) tag(c byte) bool {
	if !w.spend(1) {
		return false
	}
	w.out = append(w.out, c)
	return true
}

// value writes v, a decoded JSON value, in canonical form; false when it
// is too large, too deep or not JSON.
func (w *writer) value(v any, depth int) bool {
	if depth > MaxDepth {
		return false
	}
	switch x := v.(type) {
	case nil:
		return w.tag('z')
	case bool:
		if x {
			return w.tag('t')
		}
		return w.tag('f')
	case string:
		return w.str(x)
	case json.Number:
		return w.number(string(x))
	case float64:
		return w.float(x)
	case float32:
		return w.float(float64(x))
	case int:
		return w.integer(int64(x))
	case int64:
		return w.integer(x)
	case map[string]any:
		return w.object(x, depth)
	case map[string]string: // a prompt's arguments
		m := make(map[string]any, len(x))
		for k, s := range x {
			m[k] = s
		}
		return w.object(m, depth)
	case []any:
		return w.array(x, depth)
	}
	return false
}

// float writes x as number writes its text: an integer without making it.
func (w *writer) float(x float64) bool {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return false
	}
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return w.integer(int64(x))
	}
	return w.number(strconv.FormatFloat(x, 'g', -1, 64))
}

// object writes x's members in key order.
func (w *writer) object(x map[string]any, depth int) bool {
	if len(x) > w.left/2 || !w.tag('{') {
		return false
	}
	var few [16]string
	keys := few[:0]
	for k := range x {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !w.str(k) || !w.value(x[k], depth+1) {
			return false
		}
	}
	return w.tag('}')
}

// array writes x's items in order.
func (w *writer) array(x []any, depth int) bool {
	if len(x) > w.left || !w.tag('[') {
		return false
	}
	for _, e := range x {
		if !w.value(e, depth+1) {
			return false
		}
	}
	return w.tag(']')
}

// number writes a JSON number by value: sign, significant digits and
// exponent, so that 1, 1.0, 10e-1 and 1E0 write the same bytes.
func (w *writer) number(s string) bool {
	n, ok := canonicalNumber(s)
	if !ok || !w.spend(len(n)+1) {
		return false
	}
	w.out = append(append(w.out, 'n'), n...)
	return true
}

// integer writes n as number writes its decimal text, without making
// that text: the common case of a JSON number.
func (w *writer) integer(n int64) bool {
	if !w.spend(24) {
		return false
	}
	w.out = append(w.out, 'n')
	if n == 0 {
		w.out = append(w.out, '0')
		return true
	}
	w.out = strconv.AppendInt(w.out, n, 10)
	zeros := 0
	for w.out[len(w.out)-1] == '0' {
		w.out = w.out[:len(w.out)-1]
		zeros++
	}
	w.out = strconv.AppendInt(append(w.out, 'e'), int64(zeros), 10)
	return true
}

// canonicalNumber is s's value as "[-]digits e exponent" with no leading or
// trailing zero in digits ("0" for zero); ok is false for text that is not
// a JSON number or an exponent out of int32's range.
func canonicalNumber(s string) (string, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	mant, exp, ok := splitExponent(s)
	if !ok {
		return "", false
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	if intPart == "" || strings.Trim(intPart+frac, "0123456789") != "" {
		return "", false
	}
	digits := intPart + frac
	exp -= len(frac)
	d := strings.TrimLeft(digits, "0")
	if d == "" {
		return "0", true
	}
	t := strings.TrimRight(d, "0")
	exp += len(d) - len(t)
	out := t + "e" + strconv.Itoa(exp)
	if neg {
		out = "-" + out
	}
	return out, true
}

// splitExponent splits an unsigned JSON number into its mantissa and its
// exponent (0 if none); ok is false for an exponent that is not one.
func splitExponent(s string) (mant string, exp int, ok bool) {
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return s, 0, true
	}
	e, err := strconv.ParseInt(s[i+1:], 10, 32)
	return s[:i], int(e), err == nil
}
