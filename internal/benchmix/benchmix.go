// Package benchmix measures forms of one call side by side in a benchmark:
// the forms take turns in every iteration (so a noisy machine slows them
// alike), and the benchmark reports each form's median latency and its
// overhead over the first form, the bare one.
package benchmix

import (
	"slices"
	"testing"
	"time"
)

// Run calls call(i) for every form i in turn, b.N rounds, and reports
// "<form>-µs" medians, "<form>-overhead-%", "<form>-added-ns" (the
// difference of the medians) and "<form>-×bare" (their ratio) against
// names[0]. A call
// that returns an error fails the benchmark.
func Run(b *testing.B, names []string, call func(i int) error) {
	RunAgainst(b, names, nil, call)
}

// RunAgainst is Run that also reports "<form>-×<base>", the ratio of a
// form's median to another's, for every form against names.
func RunAgainst(b *testing.B, names []string, against map[string]string, call func(i int) error) {
	took := make([][]time.Duration, len(names))
	n := 0
	for b.Loop() {
		for k := range names {
			i := (n + k) % len(names)
			start := time.Now()
			err := call(i)
			took[i] = append(took[i], time.Since(start))
			if err != nil {
				b.Fatalf("%s: %v", names[i], err)
			}
		}
		n++
	}
	median := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds()) / 1000
	}
	medians := make(map[string]float64, len(names))
	for i, name := range names {
		medians[name] = median(took[i])
	}
	bare := medians[names[0]]
	b.ReportMetric(bare, names[0]+"-µs")
	for i := 1; i < len(names); i++ {
		m := medians[names[i]]
		b.ReportMetric(m, names[i]+"-µs")
		b.ReportMetric(100*(m-bare)/bare, names[i]+"-overhead-%")
		b.ReportMetric(1000*(m-bare), names[i]+"-added-ns")
		b.ReportMetric(m/bare, names[i]+"-×"+names[0])
	}
	for form, base := range against {
		if f, ok := medians[form]; ok && medians[base] > 0 {
			b.ReportMetric(f/medians[base], form+"-×"+base)
		}
	}
	b.ReportMetric(0, "ns/op")
}
