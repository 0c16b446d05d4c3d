// Package jsonnum reads a JSON number as a Go integer of either
// signedness, from what a JSON decoder made of it: a float64 (mcp-go's
// arguments) or its text (a json.Number).
package jsonnum

import (
	"encoding/json"
	"errors"
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

// OfNumber reads a number kept as its JSON text, exactly: 14.0000000000000001
// and 1e-400 are fractions (a float64 would read 14 and 0), and
// 9007199254740993.0 is that integer (a float64 would read 2^53). Text
// that is no JSON number is a fraction: the wrong type.
func OfNumber(x json.Number) (Whole, Reading) {
	s := string(x)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return OfInt(i), IsWhole
	}
	neg := strings.HasPrefix(s, "-")
	digits, point, ok := decimal(strings.TrimPrefix(s, "-"))
	switch {
	case !ok || len(digits) > point && digits != "":
		return Whole{}, IsFraction
	case digits == "":
		return Whole{}, IsWhole // a zero: 0.0, 0e5, -0
	case point > 20: // more digits than any Go integer holds
		return Whole{Neg: neg}, IsOutOfRange
	}
	text := digits + strings.Repeat("0", point-len(digits))
	if neg {
		i, err := strconv.ParseInt("-"+text, 10, 64)
		if err != nil {
			return Whole{Neg: true}, IsOutOfRange
		}
		return OfInt(i), IsWhole
	}
	u, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return Whole{}, IsOutOfRange
	}
	return Whole{I: int64(min(u, math.MaxInt64)), U: u}, IsWhole
}

// decimal reads the JSON number s (no sign) as its significant digits,
// without leading or trailing zeros, and where its decimal point falls
// among them: the number is 0.digits × 10^point. ok is false when s is no
// JSON number.
func decimal(s string) (digits string, point int, ok bool) {
	mantissa, exp, _ := strings.Cut(strings.ToLower(s), "e")
	whole, frac, _ := strings.Cut(mantissa, ".")
	e, err := strconv.Atoi(exp)
	if exp == "" {
		e, err = 0, nil
	} else if err != nil && errors.Is(err, strconv.ErrRange) {
		e, err = 1<<30, nil // beyond every integer, or below every fraction
		if exp[0] == '-' {
			e = -e
		}
	}
	if err != nil || whole == "" || strings.Trim(whole+frac, "0123456789") != "" {
		return "", 0, false
	}
	digits = whole + frac
	point = len(whole) + e
	trimmed := strings.TrimLeft(digits, "0")
	point -= len(digits) - len(trimmed)
	return strings.TrimRight(trimmed, "0"), point, true
}

// ranges are the integers each Go integer kind holds, as decimal text.
var ranges = map[reflect.Kind][2]string{
	reflect.Int8: {"-128", "127"}, reflect.Int16: {"-32768", "32767"}, reflect.Int32: {"-2147483648", "2147483647"},
	reflect.Int:   {strconv.Itoa(math.MinInt), strconv.Itoa(math.MaxInt)},
	reflect.Int64: {"-9223372036854775808", "9223372036854775807"},
	reflect.Uint8: {"0", "255"}, reflect.Uint16: {"0", "65535"}, reflect.Uint32: {"0", "4294967295"},
	reflect.Uint:    {"0", strconv.FormatUint(math.MaxUint, 10)},
	reflect.Uint64:  {"0", "18446744073709551615"},
	reflect.Uintptr: {"0", strconv.FormatUint(uint64(^uintptr(0)), 10)},
}

// Range is the integers the Go integer kind k holds, from lo to hi as
// decimal text; ok is false for any other kind.
func Range(k reflect.Kind) (lo, hi string, ok bool) {
	r, ok := ranges[k]
	return r[0], r[1], ok
}

// Fits reports whether the Go integer kind k holds w.
func (w Whole) Fits(k reflect.Kind) bool {
	lo, hi, ok := Range(k)
	if !ok {
		return false
	}
	if w.Neg {
		min, _ := strconv.ParseInt(lo, 10, 64)
		return w.I >= min
	}
	max, _ := strconv.ParseUint(hi, 10, 64)
	return w.U <= max
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
