// Package jsonnum reads a JSON number as a Go integer of either
// signedness, from what a JSON decoder made of it: a float64 (mcp-go's
// arguments) or its text (a json.Number).
package jsonnum

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Whole is a JSON integer as both Go integer types may hold it: I, or
// math.MaxInt64 when it is too large for an int64; U, or 0 when it is
// negative.
type Whole struct {
	I   int64
	U   uint64
	Neg bool
}

// Reading is what reading a JSON number as a Whole found.
type Reading uint8

const (
	IsWhole      Reading = iota
	IsFraction           // a fraction: the wrong type
	IsOutOfRange         // an integer no Go integer holds; Whole.Neg says on which side
)

// OfFloat reads a number decoded into a float64.
func OfFloat(x float64) (Whole, Reading) {
	if x != math.Trunc(x) || math.IsInf(x, 0) {
		return Whole{}, IsFraction
	}
	switch {
	case x >= -(1<<63) && x < 1<<63:
		return OfInt(int64(x)), IsWhole
	case x >= 0 && x < 1<<64:
		return Whole{I: math.MaxInt64, U: uint64(x)}, IsWhole
	}
	return Whole{Neg: x < 0}, IsOutOfRange
}

// OfNumber reads a number kept as its JSON text.
func OfNumber(x json.Number) (Whole, Reading) {
	s := string(x)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return OfInt(i), IsWhole
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		return Whole{I: math.MaxInt64, U: u}, IsWhole
	}
	f, err := x.Float64()
	switch {
	case err != nil: // beyond float64 (1e400): beyond every integer type too
		return Whole{Neg: strings.HasPrefix(s, "-")}, IsOutOfRange
	case f != math.Trunc(f):
		return Whole{}, IsFraction
	case math.Abs(f) >= 1<<63:
		return Whole{Neg: f < 0}, IsOutOfRange
	}
	return OfInt(int64(f)), IsWhole
}

// OfInt is the Whole an int64 is.
func OfInt(i int64) Whole {
	if i < 0 {
		return Whole{I: i, Neg: true}
	}
	return Whole{I: i, U: uint64(i)}
}

// Set sets dst, a signed integer when signed is true and an unsigned one
// otherwise, to w, and reports whether dst's type holds it.
func (w Whole) Set(dst reflect.Value, signed bool) bool {
	if signed {
		if (!w.Neg && w.U > math.MaxInt64) || dst.OverflowInt(w.I) {
			return false
		}
		dst.SetInt(w.I)
		return true
	}
	if w.Neg || dst.OverflowUint(w.U) {
		return false
	}
	dst.SetUint(w.U)
	return true
}
