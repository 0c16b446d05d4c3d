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
