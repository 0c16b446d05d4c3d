package logline

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// TestJSONFloatWritesWhatEncodingJSONWrites: appendJSONFloat's short way
// for whole thousandths gives encoding/json's bytes, for every duration up
// to an hour in microseconds, around the bound, negative zero, and random
// floats.
func TestJSONFloatWritesWhatEncodingJSONWrites(t *testing.T) {
	check := func(f float64) {
		t.Helper()
		got, ok := appendJSONFloat(nil, f)
		want, err := json.Marshal(f)
		if err != nil { // NaN and infinities
			if ok {
				t.Fatalf("%v: wrote %s, want nothing (%v)", f, got, err)
			}
			return
		}
		if !ok || string(got) != string(want) {
			t.Fatalf("%v: wrote %s, want %s", f, got, want)
		}
	}
	for us := int64(0); us <= 3_600_000_000; us += 1 + us/1000 {
		check(float64(us) / 1000)
	}
	for us := range int64(2_000_000) {
		check(float64(us) / 1000)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 300_000 {
		check(float64(r.Int64N(1<<43)) / 1000)
		check(r.Float64() * 1e4)
		check(math.Float64frombits(r.Uint64()))
	}
	for _, f := range []float64{1 << 33, 1<<33 - 0.001, 1<<33 + 0.001, math.Nextafter(1<<33, 0), 0.1 + 0.2,
		math.Copysign(0, -1), -0.001, 1e-7, 5e-324, math.NaN(), math.Inf(-1)} {
		check(f)
	}
}
