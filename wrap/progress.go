package wrap

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/call"
)

// WithProgressTimeout makes the per-call timeout progress-aware, as the
// MCP specification's timeout guidance describes: the call times out when
// its handler has reported no progress (a notifications/progress for the
// call) for idle, and in any case hardCap after it started. Each progress
// notification starts the idle clock again. It replaces WithTimeout for
// the chains it is given to (the Wrapper's, or one tool's: ForTool,
// mcpgo.Tool, gosdk.Tool); an idle of 0 turns it off, and a hardCap
// below idle is raised to idle. The timeout answer says which limit it
// was. A go-sdk handler's progress is seen when it sends it with its
// call's context (req.Session.NotifyProgress(ctx, …)); an mcp-go handler's
// through mcpgo.NotifyProgress. Calls without the option pay nothing for
// it.
func WithProgressTimeout(idle, hardCap time.Duration) Option {
	return func(c *config) {
		c.progressIdle, c.progressCap = max(idle, 0), max(hardCap, idle, 0)
	}
}

// errIdle is the context cause of a call that reported no progress for
// its idle time; like errTimedOut, it wraps context.DeadlineExceeded.
var errIdle = fmt.Errorf("mcpwrap: no progress within the idle timeout: %w", context.DeadlineExceeded)

// ourTimeout reports whether cause is the chain's own timeout.
func ourTimeout(cause error) bool { return cause == errTimedOut || cause == errIdle }

// idleClock cancels a call's context when it reports no progress for a
// while; each report (Progressed) starts the clock again.
type idleClock struct {
	mu    sync.Mutex
	t     *time.Timer
	idle  time.Duration
	fired bool
}

// withIdle returns ctx that ends, with cause errIdle, when the handler
// reports no progress for idle, and the function that stops the clock.
func withIdle(ctx context.Context, idle time.Duration) (context.Context, func()) {
	ictx, cancel := context.WithCancelCause(ctx)
	c := &idleClock{idle: idle}
	c.t = time.AfterFunc(idle, func() {
		c.mu.Lock()
		c.fired = true
		c.mu.Unlock()
		cancel(errIdle)
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
