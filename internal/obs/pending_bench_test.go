package obs

import (
	"reflect"
	"testing"
	"time"
)

// shardedCalls is pendingCalls sharded by the channel's address, as it
// was: 16 maps under 16 locks, a cache line each.
type shardedCalls struct {
	shards [16]struct {
		pendingCalls
		_ [48]byte
	}
}

func (c *shardedCalls) shard(done <-chan struct{}) *pendingCalls {
	p := reflect.ValueOf(done).Pointer() // a channel's allocation: 96 bytes, 16-aligned
	return &c.shards[(p>>4^p>>8^p>>12)%uintptr(len(c.shards))].pendingCalls
}

func (c *shardedCalls) store(done <-chan struct{}, p pending) { c.shard(done).store(done, p) }

func (c *shardedCalls) claim(done <-chan struct{}) (string, bool) { return c.shard(done).claim(done) }

func (c *shardedCalls) take(done <-chan struct{}) (pending, bool) { return c.shard(done).take(done) }

// BenchmarkPendingCalls decides whether the shards of pendingCalls pay:
// a request's three map operations (Began's store, Start's claim,
// Answered's take) from every P at once, through the sharded maps and
// through one map under one lock (pendingCalls).
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
		{"sharded", new(shardedCalls)},
		{"one_lock", new(pendingCalls)},
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
