package obs

import (
	"context"
	"encoding/hex"
	"math/rand/v2"
	"reflect"
	"sync"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/call"
)

// Began notes that the SDK received a request, before any middleware runs:
// its JSON-RPC request id (which only the SDK's hooks see) and the time it
// arrived. The request is keyed by ctx's Done channel, so the SDK must give
// the hook and the handler the same context, and must call Answered once it
// has answered. Start then finds the id, and Answered knows whether the
// chain observed the request.
func (o *Observer) Began(ctx context.Context, requestID string) {
	if done := ctx.Done(); done != nil {
		o.calls.store(done, pending{id: requestID, begin: time.Now()})
	}
}

// Answered closes what Began opened. When Start never ran for the request
// (the SDK answered it before any handler: an unknown tool, unparsable
// params, its own schema validation), it records the request from req and
// out: exactly one log line and span per request either way. unknownTool
// keeps the client-chosen name out of the metric's attributes.
func (o *Observer) Answered(ctx context.Context, req *call.Request, out Report, unknownTool bool) {
	if u, seen := o.Settle(ctx); !seen {
		o.AnsweredUnseen(ctx, u, req, out, unknownTool)
	}
}

// Unseen is a request the chain did not observe, as Settle found it.
type Unseen struct {
	began bool // Began noted it, at begin
	begin time.Time
}

// Settle is Answered's first half, for a caller that need not build the
// request when the chain observed it (seen, the common case): it closes
// what Began opened; when seen is false the caller hands the request to
// AnsweredUnseen with u.
func (o *Observer) Settle(ctx context.Context) (u Unseen, seen bool) {
	if done := ctx.Done(); done != nil {
		var p pending
		if p, u.began = o.calls.take(done); p.seen {
			return u, true
		}
		u.begin = p.begin
	}
	return u, false
}

// AnsweredUnseen is Answered's second half: it records a request Settle
// found unseen.
func (o *Observer) AnsweredUnseen(ctx context.Context, u Unseen, req *call.Request, out Report, unknownTool bool) {
	begin := u.begin
	if !u.began {
		begin = time.Now()
	}
	c := o.newRecording(ctx, req, newCallID(), begin)
	c.early = u.began
	c.anyTool = unknownTool
	_, c = c.startSpan(ctx, req)
	c.End(ctx, out)
}

// pending is a request between the SDK's first hook and its answer, held
// by value: a request costs the map no allocation of its own.
type pending struct {
	id    string // the JSON-RPC request id
	begin time.Time
	seen  bool // Start ran for it: the chain logs it
}

// claim returns the JSON-RPC request id Began noted for ctx's request, and
// marks the request seen, so that Answered leaves its line to the chain;
// ok is false when Began did not note it.
func (o *Observer) claim(ctx context.Context) (id string, ok bool) {
	done := ctx.Done()
	if done == nil {
		return "", false
	}
	return o.calls.claim(done)
}

// pendingCalls holds the requests between Began and Answered by their
// context's Done channel: maps under locks, which, unlike a sync.Map,
// allocate nothing per request once grown and hash the channel as the
// pointer it is. They are sharded by the channel: the sessions of a busy
// server begin their calls at once, and one lock made them wait on each
// other. Each request takes a lock three times, for a map operation.
type pendingCalls struct {
	shards [pendingShards]pendingShard
}

const pendingShards = 16

// pendingShard is one map of pendingCalls under its lock.
type pendingShard struct {
	mu sync.Mutex
	m  map[<-chan struct{}]pending
	_  [48]byte // a cache line each
}

func (c *pendingCalls) shard(done <-chan struct{}) *pendingShard {
	p := reflect.ValueOf(done).Pointer() // a channel's allocation: 96 bytes, 16-aligned
	return &c.shards[(p>>4^p>>8^p>>12)%pendingShards]
}

func (c *pendingCalls) store(done <-chan struct{}, p pending) { c.shard(done).store(done, p) }

// claim marks done's request seen and returns its id.
func (c *pendingCalls) claim(done <-chan struct{}) (string, bool) { return c.shard(done).claim(done) }

// take removes and returns done's request.
func (c *pendingCalls) take(done <-chan struct{}) (pending, bool) { return c.shard(done).take(done) }

// len is how many requests are pending.
func (c *pendingCalls) len() int {
	n := 0
	for i := range c.shards {
		s := &c.shards[i]
		s.mu.Lock()
		n += len(s.m)
		s.mu.Unlock()
	}
	return n
}

func (s *pendingShard) store(done <-chan struct{}, p pending) {
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[<-chan struct{}]pending)
	}
	s.m[done] = p
	s.mu.Unlock()
}

func (s *pendingShard) claim(done <-chan struct{}) (string, bool) {
	s.mu.Lock()
	p, ok := s.m[done]
	if ok && !p.seen {
		p.seen = true
		s.m[done] = p
	}
	s.mu.Unlock()
	return p.id, ok
}

func (s *pendingShard) take(done <-chan struct{}) (pending, bool) {
	s.mu.Lock()
	p, ok := s.m[done]
	if ok {
		delete(s.m, done)
	}
	s.mu.Unlock()
	return p, ok
}

func newCallID() string {
	var b [8]byte
	u := rand.Uint64()
	for i := range b {
		b[i] = byte(u >> (8 * i))
	}
	return hex.EncodeToString(b[:])
}
