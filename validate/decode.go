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

	"github.com/mcpwrap/mcpwrap/errs"
)

// maxExactFloat is 2^53: integers at or beyond it may have lost precision
// when mcp-go decoded the arguments into float64.
const maxExactFloat = 1 << 53

// decoder walks a decoded JSON value (as encoding/json produces it, with
// float64 or json.Number numbers) into a Go value following a plan. It
// collects every problem instead of stopping at the first. It allocates
// nothing for paths or messages unless something is wrong.
type decoder struct {
	cfg  *config
	path []byte
	// viols are the problems found while decoding.
	viols []errs.Violation
	// failed are the paths whose value could not be decoded; validator
	// errors at or under them are dropped, since the value they would
	// judge is a zero the model never sent.
	failed []string
	// zeroPresent are the paths of required fields that were sent with
	// their zero value ("", 0, false, [], {}), so "required" can say
	// "must not be empty" instead of "is required".
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

func (d *decoder) push(name string) int {
	n := len(d.path)
	if n > 0 {
		d.path = append(d.path, '.')
	}
	d.path = append(d.path, name...)
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
	d.path = append(d.path, k...)
	d.path = append(d.path, ']')
	return n
}

func (d *decoder) pop(n int) { d.path = d.path[:n] }

// typeError records that the value at the current path has the wrong type.
func (d *decoder) typeError(n *node, v any, secret bool) {
	p := string(d.path)
	d.failed = append(d.failed, p)
	exp := expectedType(n)
	msg := "parameter " + strconv.Quote(p) + " must be " + exp + ", got " + describeJSON(v, secret)
	d.viols = append(d.viols, errs.Violation{Parameter: p, Rule: "type", Expected: exp, Got: gotJSON(v, secret), Message: msg})
}

// valueError records a value of the right JSON type that the Go type
// cannot hold (an integer out of range, a malformed date-time).
func (d *decoder) valueError(rule, expected string, v any, secret bool) {
	p := string(d.path)
	d.failed = append(d.failed, p)
	msg := "parameter " + strconv.Quote(p) + " must be " + expected + ", got " + describeJSON(v, secret)
	d.viols = append(d.viols, errs.Violation{Parameter: p, Rule: rule, Expected: expected, Got: gotJSON(v, secret), Message: msg})
}

// value decodes v into dst, which is settable.
func (d *decoder) value(v any, dst reflect.Value, n *node, secret bool) {
	if v == nil {
		switch n.kind {
		case kPtr, kAny:
			return
		case kRaw:
			dst.SetBytes([]byte("null"))
			return
		}
		d.typeError(n, nil, secret)
		return
	}
	switch n.kind {
	case kString:
		s, ok := v.(string)
		if !ok {
			d.mismatch(n, v, secret)
			return
		}
		dst.SetString(s)
	case kBool:
		b, ok := v.(bool)
		if !ok {
			d.mismatch(n, v, secret)
			return
		}
		dst.SetBool(b)
	case kInt:
		d.integer(v, dst, n, secret)
	case kUint:
		d.integer(v, dst, n, secret)
	case kFloat:
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case json.Number:
			var err error
			if f, err = x.Float64(); err != nil {
				d.valueError("range", "a number in range", v, secret)
				return
			}
		default:
			d.mismatch(n, v, secret)
			return
		}
		if dst.OverflowFloat(f) {
			d.valueError("range", "a number in the range of a "+dst.Type().Name(), v, secret)
			return
		}
		dst.SetFloat(f)
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
	case kSlice:
		a, ok := v.([]any)
		if !ok {
			d.mismatch(n, v, secret)
			return
		}
		s := reflect.MakeSlice(n.typ, len(a), len(a))
		for i, e := range a {
			mark := d.pushIndex(i)
			d.value(e, s.Index(i), n.elem, secret)
			d.pop(mark)
		}
		dst.Set(s)
	case kArray:
		a, ok := v.([]any)
		if !ok {
			d.mismatch(n, v, secret)
			return
		}
		if len(a) != n.typ.Len() {
			d.valueError("len", "an array of exactly "+strconv.Itoa(n.typ.Len())+" items", v, secret)
			return
		}
		for i, e := range a {
			mark := d.pushIndex(i)
			d.value(e, dst.Index(i), n.elem, secret)
			d.pop(mark)
		}
	case kMap:
		m, ok := v.(map[string]any)
		if !ok {
			d.mismatch(n, v, secret)
			return
		}
		out := reflect.MakeMapWithSize(n.typ, len(m))
		kt := n.typ.Key()
		for k, e := range m {
			mark := d.pushKey(k)
			ev := reflect.New(n.elem.typ).Elem()
			d.value(e, ev, n.elem, secret)
			out.SetMapIndex(reflect.ValueOf(k).Convert(kt), ev)
			d.pop(mark)
		}
		dst.Set(out)
	case kAny:
		if !plainJSON(v) {
			d.foreign = true
			return
		}
		if d.exact {
			v = plainAny(v)
		}
		dst.Set(reflect.ValueOf(v))
	case kRaw:
		b, err := json.Marshal(v)
		if err != nil {
			d.foreign = true
			return
		}
		dst.SetBytes(b)
	case kTime:
		s, ok := v.(string)
		if !ok {
			d.mismatch(n, v, secret)
			return
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			d.valueError("datetime", expectedType(n), v, secret)
			return
		}
		dst.Set(reflect.ValueOf(t))
	case kText:
		s, ok := v.(string)
		if !ok {
			d.mismatch(n, v, secret)
			return
		}
		if err := dst.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			d.valueError("format", expectedType(n), v, secret)
		}
	case kUnmarshal:
		b, err := json.Marshal(v)
		if err != nil {
			d.foreign = true
			return
		}
		if err := dst.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(b); err != nil {
			d.valueError("format", expectedType(n), v, secret)
		}
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
		i, ok := n.byName[k]
		if !ok {
			if !d.cfg.allowUnknown {
				d.unknown(k, n)
			}
			continue
		}
		f := &n.fields[i]
		mark := d.push(f.name)
		fv := dst.FieldByIndex(f.index)
		d.value(e, fv, f.node, secret || f.secret)
		if f.required && fv.IsZero() {
			d.zeroPresent = append(d.zeroPresent, string(d.path))
		}
		d.pop(mark)
	}
}

// unknown records a parameter the struct does not have.
func (d *decoder) unknown(k string, n *node) {
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
	d.viols = append(d.viols, errs.Violation{Parameter: p, Rule: "unknown", Expected: "one of " + quoteList(n.names), Message: msg})
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
			d.valueError("range", rangeExpected(dst.Type()), v, secret)
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
					d.valueError("range", rangeExpected(dst.Type()), v, secret)
					return
				}
				d.typeError(n, v, secret)
				return
			}
			if math.Abs(f) >= 1<<63 {
				d.valueError("range", rangeExpected(dst.Type()), v, secret)
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
			d.valueError("range", rangeExpected(dst.Type()), v, secret)
			return
		}
		dst.SetInt(i)
		return
	}
	if neg || dst.OverflowUint(u) {
		d.valueError("range", rangeExpected(dst.Type()), v, secret)
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
