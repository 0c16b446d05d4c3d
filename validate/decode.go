package validate

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpwrap/mcpwrap/errs"
)

// maxExactFloat is 2^53: integers at or beyond it may have lost precision
// when mcp-go decoded the arguments into float64.
const maxExactFloat = 1 << 53

// decoder walks a decoded JSON value (as encoding/json produces it, with
// float64 or json.Number numbers) into a Go value following a plan. It
// collects the problems instead of stopping at the first, up to
// errs.MaxViolations of them; past that it only counts, within a budget
// (see skim). It allocates nothing for paths or messages unless something
// is wrong.
type decoder struct {
	c    *core
	path []byte
	// viols are the problems listed so far, at most errs.MaxViolations.
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
)

// full reports whether the list of violations has reached its cap.
func (d *decoder) full() bool { return len(d.viols) >= errs.MaxViolations }

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

// typeError records that the value at the current path has the wrong type.
func (d *decoder) typeError(n *node, v any, secret bool) {
	if d.full() {
		d.add(errs.Violation{})
		return
	}
	p := string(d.path)
	d.failed = append(d.failed, p)
	exp := expectedType(n)
	msg := "parameter " + strconv.Quote(p) + " must be " + exp + ", got " + describeJSON(v, secret)
	d.add(errs.Violation{Parameter: p, Rule: "type", Expected: exp, Got: gotJSON(v, secret), Message: msg})
}

// valueError records a value of the right JSON type that the Go type
// cannot hold (an integer out of range, a malformed date-time).
func (d *decoder) valueError(rule, expected string, v any, secret bool) {
	d.valueProblem(rule, "must be "+expected, expected, v, secret)
}

// valueProblem is valueError with the verb phrase given.
func (d *decoder) valueProblem(rule, must, expected string, v any, secret bool) {
	if d.full() {
		d.add(errs.Violation{})
		return
	}
	p := string(d.path)
	d.failed = append(d.failed, p)
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
	switch n.kind {
	case kString, kBool:
		d.scalar(v, dst, n, secret)
	case kInt, kUint:
		d.integer(v, dst, n, secret)
	case kFloat:
		d.float(v, dst, n, secret)
	case kPtr:
		p := reflect.New(n.elem.typ)
		d.value(v, p.Elem(), n.elem, secret)
		dst.Set(p)
	case kStruct:
		m, ok := v.(map[string]any)
		if !ok {
			d.mismatch(n, v, secret)
			return
		}
		d.object(m, dst, n, secret)
	case kSlice, kArray:
		d.list(v, dst, n, secret)
	case kMap:
		d.mapping(v, dst, n, secret)
	case kAny, kRaw:
		d.anyJSON(v, dst, n)
	case kTime, kText, kUnmarshal:
		d.textual(v, dst, n, secret)
	}
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

// float decodes a JSON number into a float32 or float64.
func (d *decoder) float(v any, dst reflect.Value, n *node, secret bool) {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			d.outOfRange(v, "a number in range", strings.HasPrefix(string(x), "-"), secret)
			return
		}
	default:
		d.mismatch(n, v, secret)
		return
	}
	if dst.OverflowFloat(f) {
		d.outOfRange(v, "a number in the range of a "+dst.Type().Name(), f < 0, secret)
		return
	}
	dst.SetFloat(f)
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
			for _, rest := range a[i:] {
				if d.exhausted() {
					return
				}
				d.skim(rest, n.elem)
			}
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
	kt := n.typ.Key()
	for k, e := range m {
		if d.exhausted() {
			break
		}
		if d.full() {
			d.skim(e, n.elem)
			continue
		}
		mark := d.pushKey(k)
		ev := reflect.New(n.elem.typ).Elem()
		d.value(e, ev, n.elem, secret)
		out.SetMapIndex(reflect.ValueOf(k).Convert(kt), ev)
		d.pop(mark)
	}
	dst.Set(out)
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
	if d.exact {
		v = plainAny(v)
	}
	dst.Set(reflect.ValueOf(v))
}

// textual decodes a time.Time, an encoding.TextUnmarshaler or a
// json.Unmarshaler.
func (d *decoder) textual(v any, dst reflect.Value, n *node, secret bool) {
	if n.kind == kUnmarshal {
		b, err := json.Marshal(v)
		if err != nil {
			d.foreign = true
			return
		}
		if err := dst.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(b); err != nil {
			d.valueError("format", expectedType(n), v, secret)
		}
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
		f := &n.fields[i]
		if d.full() {
			d.skim(e, f.node)
			continue
		}
		mark := d.push(f.name)
		fv := dst.FieldByIndex(f.index)
		d.value(e, fv, f.node, secret || f.secret)
		if f.required && len(d.zeroPresent) < maxZeroPresent && fv.IsZero() {
			d.zeroPresent = append(d.zeroPresent, string(d.path))
		}
		d.pop(mark)
	}
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
	if s := suggest(k, n.names); s != "" {
		msg += "; did you mean " + strconv.Quote(s) + "?"
	} else if len(n.names) > 0 {
		msg += "; known parameters are " + quoteList(n.names)
	}
	d.add(errs.Violation{Parameter: p, Rule: "unknown", Expected: "one of " + quoteList(n.names), Message: msg})
}

// exhausted reports whether skimming has used up its budget, in which
// case checking stops here.
func (d *decoder) exhausted() bool {
	if d.skimmed < maxSkim {
		return false
	}
	d.partial = true
	return true
}

// skim counts the problems in v without decoding it, once the list of
// violations is full, looking at maxSkim values at most in all. It checks
// JSON types and unknown parameters only; the rules are not run.
func (d *decoder) skim(v any, n *node) {
	if d.exhausted() {
		return
	}
	d.skimmed++
	for n.kind == kPtr && v != nil {
		n = n.elem
	}
	// Any JSON may become an any, a json.RawMessage or a json.Unmarshaler.
	free := n.kind == kAny || n.kind == kRaw || n.kind == kUnmarshal
	ok := true
	switch x := v.(type) {
	case nil:
		ok = free || n.kind == kPtr
	case string:
		ok = free || n.kind == kString || n.kind == kTime || n.kind == kText
	case bool:
		ok = free || n.kind == kBool
	case float64, json.Number:
		ok = free || n.kind == kInt || n.kind == kUint || n.kind == kFloat
	case []any:
		ok = free || n.kind == kSlice || n.kind == kArray
		if !free && ok {
			for _, e := range x {
				if d.exhausted() {
					return
				}
				d.skim(e, n.elem)
			}
		}
	case map[string]any:
		ok = free || n.kind == kStruct || n.kind == kMap
		if !free && n.kind == kMap {
			for _, e := range x {
				if d.exhausted() {
					return
				}
				d.skim(e, n.elem)
			}
		}
		if !free && n.kind == kStruct {
			d.skimObject(x, n)
		}
	}
	if !ok {
		d.add(errs.Violation{})
	}
}

func (d *decoder) skimObject(m map[string]any, n *node) {
	for k, e := range m {
		if d.exhausted() {
			return
		}
		if i, known := n.byName[k]; known {
			d.skim(e, n.fields[i].node)
		} else if !d.c.cfg.allowUnknown {
			d.skimmed++
			d.add(errs.Violation{})
		}
	}
}

// outOfRange records a number the Go type cannot hold. When the field's
// rules declare a bound on that side, the bound is what the model needs
// to hear ("between 1 and 14"), not the range of an int64.
func (d *decoder) outOfRange(v any, typeRange string, neg, secret bool) {
	if d.full() {
		d.add(errs.Violation{})
		return
	}
	bd := d.c.bounds[shapeOf(string(d.path))]
	rule, param := "max", bd.hi
	if neg {
		rule, param = "min", bd.lo
	}
	if param == "" {
		d.valueError("range", typeRange, v, secret)
		return
	}
	must, expected := phrase(rule, param, cNumber, bd, false, nil)
	d.valueProblem(rule, must, expected, v, secret)
}

// integer decodes a JSON number into a signed or unsigned integer.
func (d *decoder) integer(v any, dst reflect.Value, n *node, secret bool) {
	var (
		i     int64
		u     uint64
		neg   bool
		exact bool
	)
	switch x := v.(type) {
	case float64:
		if x != math.Trunc(x) || math.IsInf(x, 0) {
			d.typeError(n, v, secret)
			return
		}
		if math.Abs(x) >= maxExactFloat {
			d.imprecise = true
		}
		neg = x < 0
		switch {
		case x >= -(1<<63) && x < 1<<63:
			i, u, exact = int64(x), uint64(x), true
			if neg {
				u = 0
			}
		case x >= 0 && x < 1<<64:
			u, exact = uint64(x), true
			i = math.MaxInt64
		}
		if !exact {
			d.outOfRange(v, rangeExpected(dst.Type()), neg, secret)
			return
		}
	case json.Number:
		s := string(x)
		var err error
		if i, err = strconv.ParseInt(s, 10, 64); err == nil {
			neg, u = i < 0, uint64(i)
			if neg {
				u = 0
			}
		} else if u, err = strconv.ParseUint(s, 10, 64); err == nil {
			i = math.MaxInt64
		} else {
			f, ferr := x.Float64()
			if ferr != nil || f != math.Trunc(f) {
				if ferr == nil || !strings.ContainsAny(s, ".eE") {
					d.outOfRange(v, rangeExpected(dst.Type()), strings.HasPrefix(s, "-"), secret)
					return
				}
				d.typeError(n, v, secret)
				return
			}
			if math.Abs(f) >= 1<<63 {
				d.outOfRange(v, rangeExpected(dst.Type()), f < 0, secret)
				return
			}
			i, neg = int64(f), f < 0
			u = uint64(max(i, 0))
		}
	default:
		d.mismatch(n, v, secret)
		return
	}
	if n.kind == kInt {
		if (!neg && u > math.MaxInt64) || dst.OverflowInt(i) {
			d.outOfRange(v, rangeExpected(dst.Type()), neg, secret)
			return
		}
		dst.SetInt(i)
		return
	}
	if neg || dst.OverflowUint(u) {
		d.outOfRange(v, rangeExpected(dst.Type()), neg, secret)
		return
	}
	dst.SetUint(u)
}

// rangeExpected describes the integers a Go type can hold.
func rangeExpected(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int8:
		return "an integer between -128 and 127"
	case reflect.Int16:
		return "an integer between -32768 and 32767"
	case reflect.Int32:
		return "an integer between -2147483648 and 2147483647"
	case reflect.Int, reflect.Int64:
		return "an integer between -9223372036854775808 and 9223372036854775807"
	case reflect.Uint8:
		return "an integer between 0 and 255"
	case reflect.Uint16:
		return "an integer between 0 and 65535"
	case reflect.Uint32:
		return "an integer between 0 and 4294967295"
	}
	return "an integer between 0 and 18446744073709551615"
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
