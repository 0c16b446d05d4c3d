package ratelimit_test

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwrap/mcpwrap/internal/ratelimit"
)

// TestMain fails the suite if a goroutine outlives it: the local store
// must run none.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestLocalMemoryBounded sends 100 000 distinct keys through a store
// bounded at 10 000 buckets: the bucket count never passes the bound and
// the heap stays within what the bound needs; once the window has passed,
// idle buckets are reaped by the next new key, with no goroutine.
func TestLocalMemoryBounded(t *testing.T) {
	const distinct, bound = 100_000, 10_000
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := ratelimit.NewLocal(bound)
	before := heapInUse()
	for i := range distinct {
		b := ratelimit.Bucket{Tool: "t", Scope: "session", ID: "s" + strconv.Itoa(i), Limit: 10, Per: time.Minute, Burst: 10}
		if _, err := st.Take(ctx, now, b); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 0 && st.Len() > bound {
			t.Fatalf("%d buckets after %d keys", st.Len(), i+1)
		}
	}
	grown := int64(heapInUse()) - int64(before)
	t.Logf("%d keys: %d buckets, heap grew %.1f MB", distinct, st.Len(), float64(grown)/(1<<20))
	if st.Len() > bound || grown > 16<<20 {
		t.Errorf("%d buckets, heap grew %d bytes", st.Len(), grown)
	}
	// The window passes: every bucket is full again, and the next new key
	// triggers a sweep that drops them.
	now = now.Add(time.Minute)
	for i := range 10 {
		b := ratelimit.Bucket{Tool: "t", Scope: "session", ID: "late" + strconv.Itoa(i), Limit: 10, Per: time.Minute, Burst: 10}
		_, _ = st.Take(ctx, now, b)
	}
	if n := st.Len(); n > 10 {
		t.Errorf("%d buckets left after the window, want the idle ones reaped", n)
	}
}
