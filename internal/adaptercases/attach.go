package adaptercases

import (
	"runtime"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/benchmix"
	"github.com/mcpwrap/mcpwrap/internal/benchobs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// PerRequest is a server built per HTTP request with an SDK: New builds
// one, Attach attaches a Wrapper to it.
type PerRequest[S any] struct {
	New    func() S
	Attach func(S, *wrap.Wrapper)
}

// logged is a Wrapper that logs and keeps a loop guard.
func logged() *wrap.Wrapper {
	var logs logbuf.Buffer
	return wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithLoopGuard(wrap.LoopGuard{}))
}

// observed is a Wrapper that logs, traces and measures.
func observed(tb testing.TB) *wrap.Wrapper {
	return wrap.New(obstest.WithObserver(benchobs.Observer(tb)))
}

// BenchAttachPerRequest: "bare" builds the server alone, "attached" builds
// it and attaches a Wrapper that logs, "attached_observed" one that also
// traces and measures: the difference is what attaching costs (timing
// Attach alone would measure StopTimer's memory statistics instead).
func BenchAttachPerRequest[S any](b *testing.B, p PerRequest[S]) {
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = p.New()
		}
	})
	for _, c := range []struct {
		name string
		w    *wrap.Wrapper
	}{{"attached", logged()}, {"attached_observed", observed(b)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Attach(p.New(), c.w)
			}
		})
	}
}

// BenchAttachSideBySide is BenchAttachPerRequest with the forms taking
// turns call by call, so that a busy machine slows them alike: the median
// of each; "added-ns" is what attaching adds to the bare median.
func BenchAttachSideBySide[S any](b *testing.B, p PerRequest[S]) {
	logged, observed := logged(), observed(b)
	benchmix.Run(b, []string{"bare", "attached", "attached_observed"}, func(i int) error {
		s := p.New()
		switch i {
		case 1:
			p.Attach(s, logged)
		case 2:
			p.Attach(s, observed)
		}
		return nil
	})
}

// CheckAttachLeavesNothing: 10 000 servers attached to one Wrapper and
// dropped leave the heap and the goroutine count where they were:
// attaching starts nothing and the Wrapper keeps nothing per server.
func CheckAttachLeavesNothing[S any](t *testing.T, p PerRequest[S]) {
	t.Helper()
	w := logged()
	attach := func(n int) {
		for range n {
			p.Attach(p.New(), w)
		}
	}
	attach(100) // warm up what is made once
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	goroutines := runtime.NumGoroutine()
	attach(10_000)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(w)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("10 000 attaches: heap %+d bytes, goroutines %d → %d", grown, goroutines, runtime.NumGoroutine())
	if grown > 256<<10 {
		t.Errorf("the heap grew %d bytes over 10 000 attaches, want it flat (under 256 KiB)", grown)
	}
	if n := runtime.NumGoroutine(); n > goroutines {
		t.Errorf("goroutines %d → %d after 10 000 attaches", goroutines, n)
	}
}

// CheckAttachIsCheap: attaching w to a server allocates at most
// maxAllocs objects and starts no goroutine.
func CheckAttachIsCheap[S any](t *testing.T, p PerRequest[S], w *wrap.Wrapper, maxAllocs float64) {
	t.Helper()
	servers := make([]S, 0, 101)
	for range 101 {
		servers = append(servers, p.New())
	}
	before := runtime.NumGoroutine()
	i := 0
	allocs := testing.AllocsPerRun(100, func() {
		p.Attach(servers[i], w)
		i++
	})
	if allocs > maxAllocs {
		t.Fatalf("Attach allocates %.0f objects, want at most %.0f", allocs, maxAllocs)
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Fatalf("%d goroutines after 101 attaches, %d before", after, before)
	}
}
