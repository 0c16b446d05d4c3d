package jsonnum

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestReadings: the same numbers read alike from a float64 and from their
// text, at the edges of both integer types.
func TestReadings(t *testing.T) {
	cases := []struct {
		text string
		f    float64
		want Whole
		got  Reading
	}{
		{"0", 0, Whole{}, IsWhole},
		{"-7", -7, Whole{I: -7, Neg: true}, IsWhole},
		{"1.5", 1.5, Whole{}, IsFraction},
		{"9223372036854775807", 0, Whole{I: math.MaxInt64, U: math.MaxInt64}, IsWhole},
		{"18446744073709551615", 0, Whole{I: math.MaxInt64, U: math.MaxUint64}, IsWhole},
		{"18446744073709551616", 1 << 64, Whole{}, IsOutOfRange},
		{"-9223372036854775809", -(1 << 63) * 2, Whole{Neg: true}, IsOutOfRange},
		{"1e3", 1e3, Whole{I: 1000, U: 1000}, IsWhole},
		{"1e400", math.Inf(1), Whole{}, IsOutOfRange},
		{"1200e-2", 12, Whole{I: 12, U: 12}, IsWhole},
		{"-1.5e1", -15, Whole{I: -15, Neg: true}, IsWhole},
		// Text a float64 cannot hold exactly (f 0: the float64 reading is
		// not compared).
		{"14.0000000000000001", 0, Whole{}, IsFraction},
		{"1e-400", 0, Whole{}, IsFraction},
		{"0e-400", 0, Whole{}, IsWhole},
		{"-0.000", 0, Whole{}, IsWhole},
		{"9007199254740993.0", 0, Whole{I: 9007199254740993, U: 9007199254740993}, IsWhole},
		{"123456789012345678901234.5", 0, Whole{}, IsFraction},
		{"-1.5e400", 0, Whole{Neg: true}, IsOutOfRange},
		{"1e99999999999999999999", 0, Whole{}, IsOutOfRange},
		{"1e-99999999999999999999", 0, Whole{}, IsFraction},
		{"1.0e+1", 0, Whole{I: 10, U: 10}, IsWhole},
		{"not a number", 0, Whole{}, IsFraction},
	}
	for _, c := range cases {
		w, got := OfNumber(json.Number(c.text))
		if w != c.want || got != c.got {
			t.Errorf("OfNumber(%s) = %+v, %v; want %+v, %v", c.text, w, got, c.want, c.got)
		}
		if c.f == 0 && c.text != "0" || math.IsInf(c.f, 0) {
			continue // not a float64 the decoder would give for this text
		}
		w, got = OfFloat(c.f)
		if w != c.want || got != c.got {
			t.Errorf("OfFloat(%v) = %+v, %v; want %+v, %v", c.f, w, got, c.want, c.got)
		}
	}
	if _, got := OfFloat(math.Inf(-1)); got != IsFraction {
		t.Errorf("OfFloat(-Inf) read %v, want IsFraction (not a number the model meant as an integer)", got)
	}
}

// TestSetHoldsOrRefuses: a Whole is set only into a type that holds it.
func TestSetHoldsOrRefuses(t *testing.T) {
	var i8 int8
	var u8 uint8
	var i64 int64
	if !OfInt(-128).Set(reflect.ValueOf(&i8).Elem(), true) || i8 != -128 {
		t.Errorf("int8 -128: got %d", i8)
	}
	if OfInt(128).Set(reflect.ValueOf(&i8).Elem(), true) {
		t.Error("int8 took 128")
	}
	if OfInt(-1).Set(reflect.ValueOf(&u8).Elem(), false) {
		t.Error("uint8 took -1")
	}
	if w, _ := OfNumber("18446744073709551615"); w.Set(reflect.ValueOf(&i64).Elem(), true) {
		t.Error("int64 took 2^64-1")
	}
}

// TestFitsEachIntegerKind: a Whole fits a kind exactly from its Range's
// lo to its hi.
func TestFitsEachIntegerKind(t *testing.T) {
	for k := reflect.Int; k <= reflect.Uintptr; k++ {
		lo, hi, ok := Range(k)
		if !ok {
			t.Fatalf("%v: no range", k)
		}
		below := lo + "0" // -1280 for -128
		if lo == "0" {
			below = "-1"
		}
		for _, c := range []struct {
			text string
			fits bool
		}{{lo, true}, {hi, true}, {below, false}, {hi + "0", false}} {
			w, r := OfNumber(json.Number(c.text))
			if got := r == IsWhole && w.Fits(k); got != c.fits {
				t.Errorf("%v: %s fits %v, want %v", k, c.text, got, c.fits)
			}
		}
	}
	if _, _, ok := Range(reflect.Float64); ok {
		t.Error("float64 has an integer range")
	}
}
