package workers

import (
	"sync"
	"testing"
	"time"
)

// TestHandoffHasOneTaker: however the work's return and the caller's
// timeout race, exactly one of them takes the outcome.
func TestHandoffHasOneTaker(t *testing.T) {
	for range 2000 {
		var h Handoff
		var taken, left bool
		var wg sync.WaitGroup
		wg.Add(2)
		go func() { defer wg.Done(); _, taken = h.Finished() }()
		go func() { defer wg.Done(); left = h.Abandon() }()
		wg.Wait()
		if taken == left {
			t.Fatalf("work took the outcome: %v, caller abandoned it: %v; exactly one must", taken, left)
		}
	}
}

// TestHandoffSaysHowLate: work that returns after the caller abandoned it
// learns how long after.
func TestHandoffSaysHowLate(t *testing.T) {
	var h Handoff
	if !h.Abandon() {
		t.Fatal("running work was not abandoned")
	}
	time.Sleep(20 * time.Millisecond)
	late, taken := h.Finished()
	if taken || late < 20*time.Millisecond {
		t.Fatalf("Finished after Abandon = (%v, %v), want (≥20ms, false)", late, taken)
	}
	var done Handoff
	if _, taken := done.Finished(); !taken || done.Abandon() {
		t.Fatal("work that finished first must be the caller's, and no longer abandonable")
	}
}
