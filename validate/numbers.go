package validate

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/jsonnum"
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
		w   jsonnum.Whole
		got jsonnum.Reading
	)
	switch x := v.(type) {
	case float64:
		w, got = jsonnum.OfFloat(x)
		d.imprecise = d.imprecise || got != jsonnum.IsFraction && math.Abs(x) >= maxExactFloat
	case json.Number:
		w, got = jsonnum.OfNumber(x)
	default:
		d.mismatch(n, v, secret)
		return
	}
	switch {
	case got == jsonnum.IsFraction:
		d.typeError(n, v, secret)
	case got == jsonnum.IsOutOfRange || !w.Set(dst, n.kind == kInt):
		d.outOfRange(v, rangeExpected(dst.Type()), w.Neg, secret)
	}
}

// rangeExpected describes the integers a Go type can hold.
func rangeExpected(t reflect.Type) string {
	lo, hi, _ := jsonnum.Range(t.Kind())
	return "an integer between " + lo + " and " + hi
}
