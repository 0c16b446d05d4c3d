package redact_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/errcases"
	"github.com/mcpwrap/mcpwrap/internal/redact"
)

// TestScrubStructured: the shared cases of handler-built error results, at
// the redactor: nothing of Leaks in the scrubbed copy, Keeps kept, and the
// handler's value left as it was.
func TestScrubStructured(t *testing.T) {
	r := redact.NewRedactor()
	for _, c := range errcases.StructuredCases() {
		t.Run(c.Name, func(t *testing.T) {
			v := c.Structured()
			before, _ := json.Marshal(v)
			got := r.ScrubStructured(v, nil)
			out, _ := json.Marshal(got.Value)
			if got.Dropped || !got.Changed {
				t.Fatalf("dropped %v, changed %v", got.Dropped, got.Changed)
			}
			if l := c.Leaked(string(out)); l != "" {
				t.Fatalf("%q left in %s", l, out)
			}
			for _, k := range c.Keeps {
				if !strings.Contains(string(out), k) {
					t.Fatalf("%s lost %q", out, k)
				}
			}
			if after, _ := json.Marshal(v); string(after) != string(before) {
				t.Fatalf("the handler's value changed: %s", after)
			}
		})
	}
	clean := map[string]any{"queue": "orders", "rows": []any{1.0, "two", true, nil}, "count": 3}
	if got := r.ScrubStructured(clean, []string{"k-41f9e2d7c0"}); got.Changed || got.Dropped {
		t.Fatalf("a clean value was copied: %+v", got)
	}
	got := r.ScrubStructured(map[string]any{"api_key": "zq-8c8c8c8c", "pin": 1234.0}, nil)
	if len(got.Secrets) != 1 || got.Secrets[0] != "zq-8c8c8c8c" {
		t.Fatalf("secrets under secret keys: %q", got.Secrets)
	}
}

// TestScrubStructuredCostIsBounded: a structured content past the bounds
// (nested 5 000 deep, or 64 MiB) is dropped without being copied, in a
// time that does not grow with it; a clean value of any size is not copied
// (allocations do not grow with it).
func TestScrubStructuredCostIsBounded(t *testing.T) {
	r := redact.NewRedactor()
	var deep any = "password=hunter2!x"
	for range 5000 {
		deep = map[string]any{"cause": deep}
	}
	if got := r.ScrubStructured(deep, nil); !got.Dropped || got.Value != nil {
		t.Fatalf("5 000 levels: %+v", got.Dropped)
	}
	rows := func(n int) map[string]any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"id": strconv.Itoa(i), "note": "queue created, nothing secret here"}
		}
		return map[string]any{"rows": out}
	}
	huge := map[string]any{"blob": strings.Repeat("x", 64<<20)}
	start := time.Now()
	if got := r.ScrubStructured(huge, nil); !got.Dropped {
		t.Fatal("64 MiB were scrubbed")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("dropping 64 MiB took %v", d)
	}
	small, large := rows(1000), rows(16000)
	a := testing.AllocsPerRun(3, func() { r.ScrubStructured(small, nil) })
	b := testing.AllocsPerRun(3, func() { r.ScrubStructured(large, nil) })
	if b > a+2 {
		t.Fatalf("allocations grow with the value: %v for 1 000 rows, %v for 16 000", a, b)
	}
}

// BenchmarkScrubStructured is the cost of scrubbing an error result's
// structured content, clean and with a secret in every row:
// go test -run '^$' -bench ScrubStructured -benchmem ./internal/redact/
func BenchmarkScrubStructured(b *testing.B) {
	r := redact.NewRedactor()
	for _, n := range []int{100, 10000} {
		for _, secret := range []bool{false, true} {
			out := make([]any, n)
			for i := range out {
				note := "queue created"
				if secret {
					note = "token=tok-" + strconv.Itoa(i) + "abcdef"
				}
				out[i] = map[string]any{"id": strconv.Itoa(i), "note": note}
			}
			v := map[string]any{"rows": out}
			b.Run(strconv.Itoa(n)+"/secret="+strconv.FormatBool(secret), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					r.ScrubStructured(v, nil)
				}
			})
		}
	}
}
