package wrap

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/deadline"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/workers"
)

// withTimeout is the timeout layer, timeout(retry(recover(handler))): the
// inner layers run in another goroutine so that the call answers on time
// even when the handler ignores its context. The handler's context is
// cancelled when the timeout fires; a result that arrives later is logged
// and dropped. The timeout bounds all attempts together.
//
// An abandoned handler keeps its bulkhead slot until it returns.
func withTimeout(ctx context.Context, req *call.Request, next handler, d time.Duration, cfg *config, rec *record, o *outcome) {
	d, t, ok := deadline.Budget(ctx, d)
	if !ok {
		o.err = t.Err(rec.tool, deadline.ErrTimedOut)
		o.sideEffects = errmap.SideEffectsNone // the handler never ran
		return
	}
	tctx, cancel := context.WithTimeoutCause(ctx, d, deadline.ErrTimedOut)
	defer cancel()
	if cfg.progressIdle > 0 && cfg.progressIdle < d {
		// WithProgressTimeout: d is the hard cap; no progress for the
		// idle time ends the call sooner.
		var stop func()
		tctx, stop = deadline.WithIdle(tctx, cfg.progressIdle)
		defer stop()
		t.Idle = cfg.progressIdle
	}
	j := cfg.workers.job()
	j.ctx, j.req, j.next, j.cfg = tctx, *req, next, cfg
	// The handler may outlive the answer, so it gets its own record in the
	// job; the caller's stays on the stack (the no-timeout path allocates
	// nothing because of that).
	j.rec = record{tool: rec.tool, callID: rec.id(), obs: rec.obs, shared: &j.attempts, ended: rec.ended}
	cfg.workers.run(j)
	select {
	case <-j.done:
	case <-tctx.Done():
		if j.abandon(cfg, rec.tool) {
			o.detached = true
			rec.attempts = j.attempts.Load()
			if cause := context.Cause(tctx); deadline.Ours(cause) {
				timedOut(ctx, cfg, req, rec, o, t, cause, cause)
			} else {
				o.err = errs.From(cause)
			}
			return
		}
		<-j.done
	}
	rec.attempts = j.attempts.Load()
	*o = j.o
	cfg.workers.reuse(j)
	if cause := context.Cause(tctx); o.err != nil && o.panic == nil && deadline.Ours(cause) {
		timedOut(ctx, cfg, req, rec, o, t, cause, o.err)
	}
}

// abandon leaves the job to its handler when the call's time is up; it is
// false when the handler finished as the timer fired, and the caller takes
// its outcome.
func (j *job) abandon(cfg *config, tool string) bool {
	// The slot moves to the handler before the call leaves it.
	j.returned = cfg.abandoned(tool)
	if j.handoff.Abandon() {
		return true
	}
	j.returned() // it finished as the timer fired
	return false
}

// timedOut makes o's error our timeout's, err being what the call ended
// with, and says what the timeout means for side effects.
func timedOut(ctx context.Context, cfg *config, req *call.Request, rec *record, o *outcome, t errmap.Timeout, cause, err error) {
	t.NoProgress = cause == deadline.ErrIdle
	o.err = t.Err(rec.tool, err)
	o.sideEffects = timeoutSideEffects(ctx, cfg, req)
}

// job returns a cleared job.
func (p *jobPool) job() *job {
	if j, ok := p.free.Get().(*job); ok {
		return j
	}
	return &job{done: make(chan struct{}, 1)}
}

// reuse clears a job whose outcome the caller took and keeps it for the
// next call. (An abandoned job belongs to its handler's goroutine until it
// returns, and is left to the garbage collector.)
func (p *jobPool) reuse(j *job) {
	done := j.done
	*j = job{done: done}
	p.free.Put(j)
}

// jobPool runs the jobs of calls with a timeout (package workers keeps
// their goroutines for the next job) and recycles the jobs. It is shared
// by the handlers of one evaluation of the options.
type jobPool struct {
	pool workers.Pool[*job]
	free sync.Pool // of *job
}

// run starts j on a kept goroutine, or on a new one.
func (p *jobPool) run(j *job) { p.pool.Run(j) }

// job is one call's inner layers, run in their own goroutine.
type job struct {
	ctx      context.Context
	req      call.Request
	next     handler
	cfg      *config
	rec      record
	o        outcome
	attempts atomic.Int32
	handoff  workers.Handoff
	returned func() // frees the abandoned handler's bulkhead slot; written before Abandon
	done     chan struct{}
}

// run runs the job's layers; the workers call it.
func (j *job) run() {
	retry(j.ctx, &j.req, j.next, j.cfg, &j.rec, &j.o)
	if j.rec.ended != nil {
		j.rec.ended(&j.o)
	}
	late, taken := j.handoff.Finished()
	if taken {
		j.done <- struct{}{}
		return
	}
	j.returned()
	// The call was answered without this outcome: tell the operator how
	// late it came and how it ended.
	err, stack := j.o.ending()
	if cause := context.Cause(j.ctx); stack == nil && errors.Is(cause, deadline.ErrIdle) && errors.Is(err, context.Canceled) {
		// The handler returned ctx.Err(): Canceled, though nobody
		// cancelled the call; its idle clock ran out.
		err = cause
	}
	j.rec.obs.Late(late, err, stack)
}

// timeoutSideEffects is what a timeout says about side effects: possible,
// unless the tool is read-only or idempotent (then repeating it is safe and
// the result says nothing more).
func timeoutSideEffects(ctx context.Context, cfg *config, req *call.Request) errmap.SideEffects {
	if safeToRetry(ctx, cfg, req) {
		return errmap.SideEffectsUnknown
	}
	return errmap.SideEffectsPossible
}
