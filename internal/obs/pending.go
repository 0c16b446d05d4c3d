package obs

import (
	"context"
	"encoding/hex"
	"math/rand/v2"
	"sync"
	"sync/atomic"
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
		o.calls.store(done, &pending{id: requestID, begin: time.Now()})
	}
}

// Answered closes what Began opened. When Start never ran for the request
// (the SDK answered it before any handler: an unknown tool, unparsable
// params, its own schema validation), it records the request from req and
// out: exactly one log line and span per request either way. unknownTool
// keeps the client-chosen name out of the metric's attributes.
func (o *Observer) Answered(ctx context.Context, req *call.Request, out Report, unknownTool bool) {
	var p *pending
	if done := ctx.Done(); done != nil {
		p = o.calls.take(done)
	}
	if p != nil && p.seen.Load() {
		return
	}
	begin := time.Now()
	if p != nil {
		begin = p.begin
	}
	c := o.newRecording(ctx, req, newCallID(), begin)
	c.early = p != nil
	c.anyTool = unknownTool
	_, c = c.startSpan(ctx, req)
	c.End(ctx, out)
}

// pending is a request between the SDK's first hook and its answer.
type pending struct {
	id    string // the JSON-RPC request id
	begin time.Time
	seen  atomic.Bool // Start ran for it: the chain logs it
}

func (o *Observer) pendingOf(ctx context.Context) *pending {
	done := ctx.Done()
	if done == nil {
		return nil
	}
	return o.calls.load(done)
}

// pendingCalls holds the requests between Began and Answered by their
// context's Done channel: a map under a lock, which, unlike a sync.Map,
// allocates nothing per request once it has grown and hashes the channel
// as the pointer it is. Each request holds the lock three times, for a map
// operation.
type pendingCalls struct {
	mu sync.Mutex
	m  map[<-chan struct{}]*pending
}

func (c *pendingCalls) store(done <-chan struct{}, p *pending) {
	c.mu.Lock()
	if c.m == nil {
		c.m = make(map[<-chan struct{}]*pending)
	}
	c.m[done] = p
	c.mu.Unlock()
}

func (c *pendingCalls) load(done <-chan struct{}) *pending {
	c.mu.Lock()
	p := c.m[done]
	c.mu.Unlock()
	return p
}

// take removes and returns done's request.
func (c *pendingCalls) take(done <-chan struct{}) *pending {
	c.mu.Lock()
	p, ok := c.m[done]
	if ok {
		delete(c.m, done)
	}
	c.mu.Unlock()
	return p
}

func newCallID() string {
	var b [8]byte
	u := rand.Uint64()
	for i := range b {
		b[i] = byte(u >> (8 * i))
	}
	return hex.EncodeToString(b[:])
}
