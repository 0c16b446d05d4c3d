// Package deadline holds the chain's own time limits: the context causes
// that tell its timeouts apart from a client's cancellation or a deadline
// set further out, the idle clock of wrap.WithProgressTimeout, and the
// budget a call has left once its wait in a transport's queue and its
// transport's write timeout are counted.
package deadline

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
)

// ErrTimedOut is the context cause that tells our own timeout apart from the
// client's cancellation or a deadline set further out.
// It wraps context.DeadlineExceeded so that errs classifies what a handler
// returns on it (e.g. a *url.Error carrying the cause) as a Timeout.
var ErrTimedOut = fmt.Errorf("mcpwrap: per-call timeout: %w", context.DeadlineExceeded)

// ErrIdle is the context cause of a call that reported no progress for
// its idle time; like ErrTimedOut, it wraps context.DeadlineExceeded.
var ErrIdle = fmt.Errorf("mcpwrap: no progress within the idle timeout: %w", context.DeadlineExceeded)

// Ours reports whether cause is the chain's own timeout.
func Ours(cause error) bool { return cause == ErrTimedOut || cause == ErrIdle }

// idleClock cancels a call's context when it reports no progress for a
// while; each report (Progressed) starts the clock again.
type idleClock struct {
	mu    sync.Mutex
	t     *time.Timer
	idle  time.Duration
	fired bool
}

// WithIdle returns ctx that ends, with cause ErrIdle, when the handler
// reports no progress for idle, and the function that stops the clock.
func WithIdle(ctx context.Context, idle time.Duration) (context.Context, func()) {
	ictx, cancel := context.WithCancelCause(ctx)
	c := &idleClock{idle: idle}
	c.t = time.AfterFunc(idle, func() {
		c.mu.Lock()
		c.fired = true
		c.mu.Unlock()
		cancel(ErrIdle)
	})
	return call.WithProgress(ictx, c.progressed), func() {
		c.t.Stop()
		cancel(nil)
	}
}

func (c *idleClock) progressed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.fired {
		c.t.Reset(c.idle)
	}
}

// Budget is what is left of the timeout d for the handler, and t
// describes it for the timeout's error; ok is false when the call spent
// all of d queued, and the handler must not run.
func Budget(ctx context.Context, d time.Duration) (left time.Duration, t errmap.Timeout, ok bool) {
	t = errmap.Timeout{Set: d, Waited: d}
	if at, queued := call.Received(ctx); queued {
		// The call waited for a worker of the transport (mcp-go's stdio
		// server queues tool calls): that wait is part of its timeout.
		t.Queued = max(time.Since(at), 0)
		d -= t.Queued
		if d <= 0 {
			return d, t, false
		}
	}
	if due, set := adapter.AnswerDue(ctx); set {
		// The transport closes the connection then: answer before it.
		if left := time.Until(due.At); left < d {
			d = max(left, 0).Truncate(time.Millisecond)
			t.Waited, t.WriteTimeout = d, due.WriteTimeout
		}
	}
	return d, t, true
}
