package mcpgo_test

import (
	"runtime"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
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
