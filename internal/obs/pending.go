package obs

import (
	"context"
	"encoding/hex"
	"math/rand/v2"
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
		o.calls.Store(done, &pending{id: requestID, begin: time.Now()})
	}
}

// Answered closes what Began opened. When Start never ran for the request
// (the SDK answered it before any handler: an unknown tool, unparsable
// params, its own schema validation), it records the request from req and
// out: exactly one log line and span per request either way. unknownTool
// keeps the client-chosen name out of the metric's attributes.
func (o *Observer) Answered(ctx context.Context, req *call.Request, out Report, unknownTool bool) {
	p := o.pendingOf(ctx)
	if p != nil {
		o.calls.Delete(ctx.Done())
		if p.seen.Load() {
			return
		}
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
	if v, ok := o.calls.Load(done); ok {
		return v.(*pending)
	}
	return nil
}

func newCallID() string {
	var b [8]byte
	u := rand.Uint64()
	for i := range b {
		b[i] = byte(u >> (8 * i))
	}
	return hex.EncodeToString(b[:])
}
