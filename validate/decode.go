package validate

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/typo"
)

// decoder walks a decoded JSON value (as encoding/json produces it, with
// float64 or json.Number numbers) into a Go value following a plan. It
// collects the problems instead of stopping at the first, up to
// errmap.MaxViolations of them; past that it only counts, within a budget
// (see skim). It allocates nothing for paths or messages unless something
// is wrong.
type decoder struct {
	c    *core
	path []byte
	// viols are the problems listed so far, at most errmap.MaxViolations.
	viols []errs.Violation
	// more counts the problems found once viols was full.
	more int
	// partial is set when checking stopped before the end (the list was
	// full): there may be problems nobody counted.
	partial bool
	// skimmed counts the values looked at once viols was full, rechecked
	// the elements checked by checkDive then.
	skimmed, rechecked int
	// values counts the values decoded, to choose how to validate.
	values int
	// failed are the paths whose value could not be decoded; validator
	// errors at or under them are dropped, since the value they would
	// judge is a zero the model never sent.
	failed []string
	// zeroPresent are the paths of required fields that were sent with
	// their zero value ("", 0, false, [], {}), so "required" can say
	// "must not be empty" instead of "is required". Bounded: past
	// maxZeroPresent, "is required" is said.
	zeroPresent []string
	// imprecise is set when an integer may have lost precision in float64.
	imprecise bool
	// foreign is set when the value holds Go types JSON decoding never
	// produces (arguments built in process); the caller re-encodes them.
	foreign bool
	// internal is a failure of the validator itself, not of the arguments.
	internal error
	// exact is set when numbers are json.Number (an exact decode).
	exact bool
	// depth is how many objects and lists enclose the value being decoded.
	depth int
	// formatted is set while decoding a field whose rules parse or match
	// its strings (see field.formatted).
	formatted bool
}

// The bounds of one binding, whatever the arguments hold.
const (
	// maxSkim is how many more values are looked at, to count problems,
	// once the list of violations is full.
	maxSkim = 4096
	// maxZeroPresent bounds decoder.zeroPresent.
	maxZeroPresent = 1024
	// maxKey is the longest key or unknown parameter name kept in a path
	// (bytes); longer ones are cut and end in "…".
	maxKey = 64
	// maxDepth is how deeply objects and lists may nest in the arguments
	// (the arguments object itself is level 0). A recursive type would
	// otherwise be decoded, and validated, as deep as the JSON goes, at a
	// cost that grows with the square of the depth (every level's path).
	maxDepth = 64
	// maxFormatBytes is the longest string a format rule (email, url,
	// uuid, base64 …, see field.formatted) is run on: its regular
	// expression or parser would read all of a multi-megabyte value.
	// A longer string fails without being read.
	maxFormatBytes = 64 << 10
)

// full reports whether the list of violations has reached its cap.
func (d *decoder) full() bool { return len(d.viols) >= errmap.MaxViolations }

// add lists a violation, or counts it when the list is full.
func (d *decoder) add(v errs.Violation) {
	if d.full() {
		d.more++
		return
	}
	d.viols = append(d.viols, v)
}

func (d *decoder) push(name string) int {
	n := len(d.path)
	if n > 0 {
		d.path = append(d.path, '.')
	}
	d.path = append(d.path, shortKey(name)...)
	return n
}

func (d *decoder) pushIndex(i int) int {
	n := len(d.path)
	d.path = append(d.path, '[')
	d.path = strconv.AppendInt(d.path, int64(i), 10)
	d.path = append(d.path, ']')
	return n
}

func (d *decoder) pushKey(k string) int {
	n := len(d.path)
	d.path = append(d.path, '[')
	d.path = append(d.path, shortKey(k)...)
	d.path = append(d.path, ']')
	return n
}

func (d *decoder) pop(n int) { d.path = d.path[:n] }

// shortKey cuts a key to maxKey bytes on a character boundary, so that a
// megabyte-long key is neither copied into every path nor quoted back.
func shortKey(k string) string {
	if len(k) <= maxKey {
		return k
	}
	i := maxKey
	for i > 0 && !utf8.RuneStart(k[i]) {
		i--
	}
	return k[:i] + "…"
}

// failing marks the value at the current path as one that could not be
// decoded and returns the path; ok is false when the list of violations
// is full, and the problem only counted.
func (d *decoder) failing() (p string, ok bool) {
	if d.full() {
		d.add(errs.Violation{})
		return "", false
	}
	p = string(d.path)
	d.failed = append(d.failed, p)
	return p, true
}

// typeError records that the value at the current path has the wrong type.
func (d *decoder) typeError(n *node, v any, secret bool) {
	d.valueError("type", expectedType(n), v, secret)
}

// valueError records a value of the right JSON type that the Go type
// cannot hold (an integer out of range, a malformed date-time).
func (d *decoder) valueError(rule, expected string, v any, secret bool) {
	d.valueProblem(rule, "must be "+expected, expected, v, secret)
}

// valueProblem is valueError with the verb phrase given.
func (d *decoder) valueProblem(rule, must, expected string, v any, secret bool) {
	p, ok := d.failing()
	if !ok {
		return
	}
	msg := "parameter " + strconv.Quote(p) + " " + must + ", got " + describeJSON(v, secret)
	d.add(errs.Violation{Parameter: p, Rule: rule, Expected: expected, Got: gotJSON(v, secret), Message: msg})
}

// value decodes v into dst, which is settable.
func (d *decoder) value(v any, dst reflect.Value, n *node, secret bool) {
	d.values++
	if d.full() {
		d.skim(v, n)
		return
	}
	if v == nil {
		d.null(dst, n, secret)
		return
	}
	if d.depth >= maxDepth && d.tooDeep(v, n) {
		return
	}
	switch n.kind {
	case kString, kBool:
		d.scalar(v, dst, n, secret)
	case kInt, kUint:
		d.integer(v, dst, n, secret)
	case kFloat:
		d.float(v, dst, n, secret)
	case kPtr:
		dst.Set(d.pointer(v, n, secret))
	case kStruct, kSlice, kArray, kMap:
		d.depth++
		d.container(v, dst, n, secret)
		d.depth--
	case kAny, kRaw:
		d.anyJSON(v, dst, n)
	case kTime, kText, kUnmarshal:
		d.textual(v, dst, n, secret)
	}
}

// pointer is a new pointer of type n to v decoded.
func (d *decoder) pointer(v any, n *node, secret bool) reflect.Value {
	p := reflect.New(n.elem.typ)
	d.value(v, p.Elem(), n.elem, secret)
	return p
}

// container decodes a JSON object or array into a struct, a slice, an
// array or a map, one level deeper.
func (d *decoder) container(v any, dst reflect.Value, n *node, secret bool) {
	switch n.kind {
	case kStruct:
		if m, ok := v.(map[string]any); ok {
			d.object(m, dst, n, secret)
			return
		}
		d.mismatch(n, v, secret)
	case kMap:
		d.mapping(v, dst, n, secret)
	default:
		d.list(v, dst, n, secret)
	}
}

// tooDeep records an object or a list nested deeper than maxDepth, which
// is not decoded (the value stays zero and the validator's findings at or
// under it are dropped), and reports whether v was one. Any JSON may fill
// an any, a json.RawMessage or a json.Unmarshaler, whose cost is linear.
func (d *decoder) tooDeep(v any, n *node) bool {
	switch n.kind {
	case kAny, kRaw, kUnmarshal:
		return false
	}
	switch v.(type) {
	case map[string]any, []any:
	default:
		return false
	}
	d.partial = true
	p, ok := d.failing()
	if !ok {
		return true
	}
	exp := "at most " + strconv.Itoa(maxDepth) + " levels of nested objects and lists"
	d.add(errs.Violation{Parameter: p, Rule: "depth", Expected: exp,
		Message: "parameter " + strconv.Quote(p) + " is nested too deeply: " + exp + " are read"})
	return true
}

// tooLong records a string longer than maxFormatBytes bound for a format
// rule, which is not run on it.
func (d *decoder) tooLong(x string) {
	p, ok := d.failing()
	if !ok {
		return
	}
	exp := "a string of at most " + strconv.Itoa(maxFormatBytes) + " bytes"
	d.add(errs.Violation{Parameter: p, Rule: "max", Expected: exp,
		Message: "parameter " + strconv.Quote(p) + " must be " + exp + " to be checked, got " + strconv.Itoa(len(x)) + " bytes"})
}

// null decodes a JSON null: nothing for a pointer or an any, "null" for a
// json.RawMessage, a type error for the rest.
func (d *decoder) null(dst reflect.Value, n *node, secret bool) {
	switch n.kind {
	case kPtr, kAny:
	case kRaw:
		dst.SetBytes([]byte("null"))
	default:
		d.typeError(n, nil, secret)
	}
}

// scalar decodes a string or a boolean.
func (d *decoder) scalar(v any, dst reflect.Value, n *node, secret bool) {
	switch x := v.(type) {
	case string:
		if n.kind == kString {
			if d.formatted && len(x) > maxFormatBytes {
				d.tooLong(x)
				return
			}
			dst.SetString(x)
			return
		}
	case bool:
		if n.kind == kBool {
			dst.SetBool(x)
			return
		}
	}
	d.mismatch(n, v, secret)
}

// list decodes a JSON array into a slice or an array. Once the list of
// violations is full, the remaining items are only skimmed.
func (d *decoder) list(v any, dst reflect.Value, n *node, secret bool) {
	a, ok := v.([]any)
	if !ok {
		d.mismatch(n, v, secret)
		return
	}
	if n.kind == kArray && len(a) != n.typ.Len() {
		d.valueError("len", "an array of exactly "+strconv.Itoa(n.typ.Len())+" items", v, secret)
		return
	}
	s := dst
	if n.kind == kSlice {
		s = reflect.MakeSlice(n.typ, len(a), len(a))
		dst.Set(s)
	}
	for i, e := range a {
		if d.full() {
			d.skimAll(slices.Values(a[i:]), n.elem)
			return
		}
		mark := d.pushIndex(i)
		d.value(e, s.Index(i), n.elem, secret)
		d.pop(mark)
	}
}

// mapping decodes a JSON object into a map.
func (d *decoder) mapping(v any, dst reflect.Value, n *node, secret bool) {
	m, ok := v.(map[string]any)
	if !ok {
		d.mismatch(n, v, secret)
		return
	}
	out := reflect.MakeMapWithSize(n.typ, len(m))
	for k, e := range m {
		if d.exhausted() {
			break
		}
		if d.full() {
			d.skim(e, n.elem)
			continue
		}
		d.entry(k, e, out, n, secret)
	}
	dst.Set(out)
}

// entry decodes e, the member k of an object, into the map out of type n.
func (d *decoder) entry(k string, e any, out reflect.Value, n *node, secret bool) {
	mark := d.pushKey(k)
	if d.formatted && len(k) > maxFormatBytes {
		d.tooLong(k) // keys,email,endkeys would read it
	} else {
		ev := reflect.New(n.elem.typ).Elem()
		d.value(e, ev, n.elem, secret)
		out.SetMapIndex(reflect.ValueOf(k).Convert(n.typ.Key()), ev)
	}
	d.pop(mark)
}

// anyJSON fills an any (the value as encoding/json would decode it) or a
// json.RawMessage (its JSON text).
func (d *decoder) anyJSON(v any, dst reflect.Value, n *node) {
	if n.kind == kRaw {
		b, err := json.Marshal(v)
		if err != nil {
			d.foreign = true
			return
		}
		dst.SetBytes(b)
		return
	}
	if !plainJSON(v) {
		d.foreign = true
		return
	}
	if s, ok := v.(string); ok && d.formatted && len(s) > maxFormatBytes {
		d.tooLong(s)
		return
	}
	if d.exact {
		v = plainAny(v)
	}
	dst.Set(reflect.ValueOf(v))
}

// textual decodes a time.Time, an encoding.TextUnmarshaler or a
// json.Unmarshaler.
func (d *decoder) textual(v any, dst reflect.Value, n *node, secret bool) {
	if n.kind == kUnmarshal {
		d.unmarshalJSON(v, dst, n, secret)
		return
	}
	s, ok := v.(string)
	if !ok {
		d.mismatch(n, v, secret)
		return
	}
	if n.kind == kTime {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			d.valueError("datetime", expectedType(n), v, secret)
			return
		}
		dst.Set(reflect.ValueOf(t))
		return
	}
	if err := dst.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
		d.valueError("format", expectedType(n), v, secret)
	}
}

// unmarshalJSON decodes v into dst, a json.Unmarshaler, through its JSON.
func (d *decoder) unmarshalJSON(v any, dst reflect.Value, n *node, secret bool) {
	b, err := json.Marshal(v)
	if err != nil {
		d.foreign = true
		return
	}
	if err := dst.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(b); err != nil {
		d.valueError("format", expectedType(n), v, secret)
	}
}

// mismatch is typeError unless v is a Go type JSON never produces, in
// which case the arguments are re-encoded and decoded again.
func (d *decoder) mismatch(n *node, v any, secret bool) {
	if !plainJSON(v) {
		d.foreign = true
		return
	}
	d.typeError(n, v, secret)
}

// object decodes a JSON object into a struct.
func (d *decoder) object(m map[string]any, dst reflect.Value, n *node, secret bool) {
	for k, e := range m {
		if d.exhausted() {
			return
		}
		i, ok := n.byName[k]
		if !ok {
			if !d.c.cfg.allowUnknown {
				d.unknown(k, n)
			}
			continue
		}
		if f := &n.fields[i]; d.full() {
			d.skim(e, f.node)
		} else {
			d.field(e, dst, f, secret)
		}
	}
}

// field decodes e, an object's member, into its struct field f of dst,
// and notes a required field given its zero value.
func (d *decoder) field(e any, dst reflect.Value, f *field, secret bool) {
	mark := d.push(f.name)
	fv := dst.FieldByIndex(f.index)
	formatted := d.formatted
	d.formatted = f.formatted
	d.value(e, fv, f.node, secret || f.secret)
	d.formatted = formatted
	if f.required && len(d.zeroPresent) < maxZeroPresent && fv.IsZero() {
		d.zeroPresent = append(d.zeroPresent, string(d.path))
	}
	d.pop(mark)
}

// unknown records a parameter the struct does not have.
func (d *decoder) unknown(k string, n *node) {
	if d.full() {
		d.skimmed++
		d.add(errs.Violation{})
		return
	}
	mark := d.push(k)
	p := string(d.path)
	d.pop(mark)
	d.failed = append(d.failed, p)
	msg := "unknown parameter " + strconv.Quote(p)
	if s := typo.Closest(k, n.names); s != "" {
		msg += "; did you mean " + strconv.Quote(s) + "?"
	} else if len(n.names) > 0 {
		msg += "; known parameters are " + quoteList(n.names)
	}
	d.add(errs.Violation{Parameter: p, Rule: "unknown", Expected: "one of " + quoteList(n.names), Message: msg})
}

// plainJSON reports whether v is one of the types encoding/json decodes
// into an any.
func plainJSON(v any) bool {
	switch v.(type) {
	case nil, string, bool, float64, json.Number, map[string]any, []any:
		return true
	}
	return false
}

// decodeJSON decodes data keeping numbers exact.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errTrailing
	}
	return v, nil
}

var errTrailing = errors.New("unexpected data after the JSON value")

// plainAny is what an any field would have held had encoding/json decoded
// the value: json.Number (from an exact decode) becomes float64.
func plainAny(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = plainAny(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainAny(e)
		}
		return out
	}
	return v
}
