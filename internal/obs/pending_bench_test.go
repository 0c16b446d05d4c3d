package obs

import (
	"testing"
	"time"
)

// BenchmarkPendingCalls decides whether the shards of pendingCalls pay:
// a request's three map operations (Began's store, Start's claim,
// Answered's take) from every P at once, through the sharded maps and
// through one map under one lock (a pendingShard alone).
//
//	go test -run '^$' -bench '^BenchmarkPendingCalls$' -benchmem -count 5 -cpu 1,2 ./internal/obs/
func BenchmarkPendingCalls(b *testing.B) {
	type calls interface {
		store(<-chan struct{}, pending)
		claim(<-chan struct{}) (string, bool)
		take(<-chan struct{}) (pending, bool)
	}
	for _, f := range []struct {
		name string
		c    calls
	}{
		{"sharded", new(pendingCalls)},
		{"one_lock", new(pendingShard)},
	} {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			begin := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				var dones [64]chan struct{}
				for i := range dones {
					dones[i] = make(chan struct{})
				}
				i := 0
				for pb.Next() {
					done := dones[i%len(dones)]
					i++
					f.c.store(done, pending{id: "1", begin: begin})
					if _, ok := f.c.claim(done); !ok {
						b.Fatal("claim lost the request")
					}
					if _, ok := f.c.take(done); !ok {
						b.Fatal("take lost the request")
					}
				}
			})
		})
	}
}
