package logline

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
)

// TestStuckOutputCostsOneWait: a line waits for the output at most
// yieldMax; after one line waited that long, the next lines do not wait
// until a write completes, so a stuck stderr slows one call, not every
// call; nothing held is lost, and once a quick write completes lines wait
// for theirs again.
func TestStuckOutputCostsOneWait(t *testing.T) {
	out := logbuf.NewGate()
	l := New(Config{Output: out, Format: "json", Buffer: true})
	a := l.Handler().(*handler).shared.buf
	l.Info("first")
	if !a.stalled.Load() {
		t.Fatal("the first line returned before its write and is not marked stalled")
	}
	start := time.Now()
	for range 100 {
		l.Info("held")
	}
	// Had each of the 100 waited yieldMax, this took 10 s.
	if took := time.Since(start); took > 50*yieldMax {
		t.Fatalf("100 lines over a stuck output took %v: they waited for it", took)
	}
	close(out.Open)
	if err := a.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), `"msg":"held"`); got != 100 || !strings.Contains(out.String(), `"msg":"first"`) {
		t.Fatalf("want first and 100 held lines, got %d held in %q", got, out.String())
	}
	// The write that waited for the gate took long, so the output may
	// still count as slow; the first quick write ends that. A write is
	// quick when it takes under slowWrite, which a loaded machine can
	// miss now and then: a few tries, not one.
	for try := 0; a.stalled.Load(); try++ {
		if try == 20 {
			t.Fatal("still marked stalled after 20 writes to an open output")
		}
		l.Info("after")
		if err := a.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	l.Info("after")
	if a.written.Load() < a.appended.Load() && !a.stalled.Load() {
		t.Fatal("a line returned before its write, neither written nor marked stalled")
	}
}
