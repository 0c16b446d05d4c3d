package gosdk_test

import (
	"runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/benchmix"
	"github.com/mcpwrap/mcpwrap/internal/benchobs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// BenchmarkAttachPerRequest: a go-sdk server built per HTTP request with
// one shared Wrapper. "bare" builds the server alone, "attached" builds it
// and attaches the Wrapper: the difference is what attaching costs.
//
//	go test -run '^$' -bench BenchmarkAttachPerRequest ./wrap/gosdk/
func BenchmarkAttachPerRequest(b *testing.B) {
	var logs logbuf.Buffer
	w := wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithLoopGuard(wrap.LoopGuard{}))
	impl := &mcp.Implementation{Name: "per-request", Version: "1.0.0"}
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = mcp.NewServer(impl, nil)
		}
	})
	b.Run("attached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			gosdk.Attach(mcp.NewServer(impl, nil), w)
		}
	})
	observed := wrap.New(obstest.WithObserver(benchobs.Observer(b)))
	b.Run("attached_observed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			gosdk.Attach(mcp.NewServer(impl, nil), observed)
		}
	})
}

// BenchmarkAttachSideBySide is BenchmarkAttachPerRequest with the forms
// taking turns call by call, so that a busy machine slows them alike: the
// median of building a server bare, then attached to a Wrapper that logs,
// then to one that logs, traces and measures; "added-ns" is what attaching
// adds to the bare median.
//
//	go test -run '^$' -bench AttachSideBySide -benchtime 20000x -count 3 .
func BenchmarkAttachSideBySide(b *testing.B) {
	var logs logbuf.Buffer
	logged := wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithLoopGuard(wrap.LoopGuard{}))
	observed := wrap.New(obstest.WithObserver(benchobs.Observer(b)))
	impl := &mcp.Implementation{Name: "per-request", Version: "1.0.0"}
	benchmix.Run(b, []string{"bare", "attached", "attached_observed"}, func(i int) error {
		s := mcp.NewServer(impl, nil)
		switch i {
		case 1:
			gosdk.Attach(s, logged)
		case 2:
			gosdk.Attach(s, observed)
		}
		return nil
	})
}

// TestAttachPerRequestLeavesNothing: 10 000 go-sdk servers attached to one
// Wrapper and dropped leave the heap and the goroutine count flat.
func TestAttachPerRequestLeavesNothing(t *testing.T) {
	var logs logbuf.Buffer
	w := wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithLoopGuard(wrap.LoopGuard{}))
	impl := &mcp.Implementation{Name: "per-request", Version: "1.0.0"}
	attach := func(n int) {
		for range n {
			gosdk.Attach(mcp.NewServer(impl, nil), w)
		}
	}
	attach(100)
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
