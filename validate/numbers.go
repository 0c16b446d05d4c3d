package validate

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/mcpwrap/mcpwrap/errs"
)

// maxExactFloat is 2^53: integers at or beyond it may have lost precision
// when mcp-go decoded the arguments into float64.
const maxExactFloat = 1 << 53

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
		w   whole
		got reading
	)
	switch x := v.(type) {
	case float64:
		w, got = d.wholeOfFloat(x)
	case json.Number:
		w, got = wholeOfNumber(x)
	default:
		d.mismatch(n, v, secret)
		return
	}
	switch {
	case got == isFraction:
		d.typeError(n, v, secret)
	case got == isOutOfRange || !setWhole(dst, n.kind, w):
		d.outOfRange(v, rangeExpected(dst.Type()), w.neg, secret)
	}
}

// whole is a JSON integer as both Go integer types may hold it: i, or
// math.MaxInt64 when it is too large for an int64; u, or 0 when it is
// negative.
type whole struct {
	i   int64
	u   uint64
	neg bool
}

// reading is what reading a JSON number as a whole found.
type reading uint8

const (
	isWhole      reading = iota
	isFraction           // a fraction: the wrong type
	isOutOfRange         // an integer no Go integer holds; whole.neg says on which side
)

// wholeOfFloat reads a number mcp-go decoded into a float64, noting when it
// is too large to have kept its precision.
func (d *decoder) wholeOfFloat(x float64) (whole, reading) {
	if x != math.Trunc(x) || math.IsInf(x, 0) {
		return whole{}, isFraction
	}
	if math.Abs(x) >= maxExactFloat {
		d.imprecise = true
	}
	switch {
	case x >= -(1<<63) && x < 1<<63:
		return wholeOfInt(int64(x)), isWhole
	case x >= 0 && x < 1<<64:
		return whole{i: math.MaxInt64, u: uint64(x)}, isWhole
	}
	return whole{neg: x < 0}, isOutOfRange
}

// wholeOfNumber reads a number kept as its JSON text.
func wholeOfNumber(x json.Number) (whole, reading) {
	s := string(x)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return wholeOfInt(i), isWhole
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return whole{i: math.MaxInt64, u: u}, isWhole
	}
	f, ferr := x.Float64()
	if ferr != nil || f != math.Trunc(f) {
		if ferr == nil || !strings.ContainsAny(s, ".eE") {
			return whole{neg: strings.HasPrefix(s, "-")}, isOutOfRange
		}
		return whole{}, isFraction
	}
	if math.Abs(f) >= 1<<63 {
		return whole{neg: f < 0}, isOutOfRange
	}
	return wholeOfInt(int64(f)), isWhole
}

// wholeOfInt is the whole an int64 is.
func wholeOfInt(i int64) whole {
	if i < 0 {
		return whole{i: i, neg: true}
	}
	return whole{i: i, u: uint64(i)}
}

// setWhole sets dst, an integer of kind k, to w and reports whether dst's
// type holds it.
func setWhole(dst reflect.Value, k kind, w whole) bool {
	if k == kInt {
		if (!w.neg && w.u > math.MaxInt64) || dst.OverflowInt(w.i) {
			return false
		}
		dst.SetInt(w.i)
		return true
	}
	if w.neg || dst.OverflowUint(w.u) {
		return false
	}
	dst.SetUint(w.u)
	return true
}

// rangeExpected describes the integers a Go type can hold.
func rangeExpected(t reflect.Type) string {
	lo, hi, ok := intRange(t)
	switch {
	case !ok: // int, int64
		lo, hi = "-9223372036854775808", "9223372036854775807"
	case hi == "":
		hi = "18446744073709551615"
	}
	return "an integer between " + string(lo) + " and " + string(hi)
}
