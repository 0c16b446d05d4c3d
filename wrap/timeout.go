package wrap

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
)

// errTimedOut is the context cause that tells our own timeout apart from the
// client's cancellation or a deadline set further out.
// It wraps context.DeadlineExceeded so that errs classifies what a handler
// returns on it (e.g. a *url.Error carrying the cause) as a Timeout.
var errTimedOut = fmt.Errorf("mcpwrap: per-call timeout: %w", context.DeadlineExceeded)

// withTimeout is the timeout layer, timeout(retry(recover(handler))): the
// inner layers run in another goroutine so that the call answers on time
// even when the handler ignores its context. The handler's context is
// cancelled when the timeout fires; a result that arrives later is logged
// and dropped. The timeout bounds all attempts together.
func withTimeout(ctx context.Context, req *mcp.CallToolRequest, next server.ToolHandlerFunc, d time.Duration, cfg *config, rec *record, o *outcome) {
	tctx, cancel := context.WithTimeoutCause(ctx, d, errTimedOut)
	defer cancel()
	j := &job{ctx: tctx, req: *req, next: next, cfg: cfg, done: make(chan struct{}, 1)}
	// The handler may outlive the answer, so it gets its own record in the
	// job; the caller's stays on the stack (the no-timeout path allocates
	// nothing because of that).
	j.rec = record{tool: rec.tool, callID: rec.id(), obs: rec.obs, shared: &j.attempts}
	go j.run()
	select {
	case <-j.done:
	case <-tctx.Done():
		j.abandonedAt = time.Now()
		if j.state.CompareAndSwap(running, abandoned) {
			rec.attempts = j.attempts.Load()
			cause := context.Cause(tctx)
			if cause != errTimedOut {
				o.err = errs.From(cause)
				return
			}
			o.err = timeoutError(req.Params.Name, d, cause)
			o.sideEffects = timeoutSideEffects(ctx, cfg, req.Params.Name)
			return
		}
		<-j.done // it finished as the timer fired
	}
	rec.attempts = j.attempts.Load()
	*o = j.o
	if o.err != nil && o.panic == nil && context.Cause(tctx) == errTimedOut {
		o.err = timeoutError(req.Params.Name, d, o.err)
		o.sideEffects = timeoutSideEffects(ctx, cfg, req.Params.Name)
	}
}

// job is one call's inner layers, run in their own goroutine.
type job struct {
	ctx      context.Context
	req      mcp.CallToolRequest
	next     server.ToolHandlerFunc
	cfg      *config
	rec      record
	o        outcome
	attempts atomic.Int32
	// state decides, once, whether the caller takes the outcome (finished)
	// or has answered without it (abandoned).
	state       atomic.Int32
	abandonedAt time.Time // written before state becomes abandoned
	done        chan struct{}
}

const (
	running int32 = iota
	finished
	abandoned
)

func (j *job) run() {
	retry(j.ctx, &j.req, j.next, j.cfg, &j.rec, &j.o)
	if j.state.CompareAndSwap(running, finished) {
		j.done <- struct{}{}
		return
	}
	// The call was answered without this outcome: tell the operator how
	// late it came and how it ended.
	late := time.Since(j.abandonedAt)
	switch {
	case j.o.panic != nil:
		j.rec.obs.Late(late, j.o.panic, j.o.panic.Stack)
	case j.o.err != nil:
		j.rec.obs.Late(late, j.o.err, nil)
	default:
		j.rec.obs.Late(late, nil, nil)
	}
}

func timeoutError(tool string, d time.Duration, cause error) *errs.Error {
	return errs.Wrap(errs.Timeout, cause,
		"tool "+strconv.Quote(tool)+" timed out after "+d.String()+"; the operation may still complete upstream")
}

// timeoutSideEffects is what a timeout says about side effects: possible,
// unless the tool is read-only or idempotent (then repeating it is safe and
// the result says nothing more).
func timeoutSideEffects(ctx context.Context, cfg *config, tool string) errs.SideEffects {
	if safeToRetry(ctx, cfg, tool) {
		return errs.SideEffectsUnknown
	}
	return errs.SideEffectsPossible
}
