package mcpgo_test

import (
	"runtime"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/benchmix"
	"github.com/mcpwrap/mcpwrap/internal/benchobs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// BenchmarkAttachPerRequest: a server built per HTTP request (as
// github-mcp-server does) with one shared Wrapper. "bare" builds the
// server alone, "attached" builds it and attaches the Wrapper: the
// difference is what attaching costs (timing Attach alone would measure
// StopTimer's memory statistics instead).
//
//	go test -run '^$' -bench BenchmarkAttachPerRequest ./wrap/mcpgo/
func BenchmarkAttachPerRequest(b *testing.B) {
	var logs logbuf.Buffer
	w := wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithLoopGuard(wrap.LoopGuard{}))
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = server.NewMCPServer("per-request", "1.0.0")
		}
	})
	b.Run("attached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			mcpgo.Attach(server.NewMCPServer("per-request", "1.0.0"), w)
		}
	})
	observed := wrap.New(obstest.WithObserver(benchobs.Observer(b)))
	b.Run("attached_observed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			mcpgo.Attach(server.NewMCPServer("per-request", "1.0.0"), observed)
		}
	})
}

// TestAttachIsCheap: attaching a Wrapper that observes (the hooks, the
// propagators, the three middlewares) allocates a bounded few small
// objects beyond the server's own and starts no goroutine.
func TestAttachIsCheap(t *testing.T) {
	w := wrap.New(obstest.WithObserver(benchobs.Observer(t)))
	servers := make([]*server.MCPServer, 0, 101)
	for range 101 {
		servers = append(servers, server.NewMCPServer("per-request", "1.0.0"))
	}
	before := runtime.NumGoroutine()
	i := 0
	allocs := testing.AllocsPerRun(100, func() {
		mcpgo.Attach(servers[i], w)
		i++
	})
	// 15, and 4 for the two hooks that end a task's work (tasks/cancel,
	// the session's end: a closure and a list each).
	if allocs > 19 {
		t.Fatalf("Attach allocates %.0f objects, want at most 19", allocs)
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Fatalf("%d goroutines after 101 attaches, %d before", after, before)
	}
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
	benchmix.Run(b, []string{"bare", "attached", "attached_observed"}, func(i int) error {
		s := server.NewMCPServer("per-request", "1.0.0")
		switch i {
		case 1:
			mcpgo.Attach(s, logged)
		case 2:
			mcpgo.Attach(s, observed)
		}
		return nil
	})
}

// TestAttachPerRequestLeavesNothing: 10 000 servers attached to one
// Wrapper and dropped leave the heap and the goroutine count where they
// were: attaching starts nothing and the Wrapper keeps nothing per server.
func TestAttachPerRequestLeavesNothing(t *testing.T) {
	var logs logbuf.Buffer
	w := wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithLoopGuard(wrap.LoopGuard{}))
	attach := func(n int) {
		for range n {
			mcpgo.Attach(server.NewMCPServer("per-request", "1.0.0"), w)
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
