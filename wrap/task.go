package wrap

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/workers"
)

// DefaultTaskTimeout is how long the work of a task may run when
// WithTaskTimeout is not given: an hour, bounded by the task's own TTL.
const DefaultTaskTimeout = time.Hour

// DefaultTasksPerCaller is how many tasks one caller may have working at
// once when WithTasksPerCaller is not given.
const DefaultTasksPerCaller = 16

// WithTaskTimeout sets how long the work of a task may run (a tools/call
// the SDK runs as an MCP task): its own budget, in place of WithTimeout's,
// which bounds only calls answered in place. A task's TTL, when shorter,
// bounds it too. When it runs out, the task ends with a Timeout result
// even if the handler ignores its context. 0 restores
// DefaultTaskTimeout; a negative d leaves only the TTL.
func WithTaskTimeout(d time.Duration) Option {
	return func(c *config) { c.taskTimeout = d }
}

// WithTasksPerCaller bounds how many tasks one caller (the token's
// subject, else the session) may have working at once: a call that would
// create one more is refused at its creation with an Unavailable result
// and a retry-after, as the bulkhead refuses one, and no task is created.
// A task counts until its handler returns. 0 restores
// DefaultTasksPerCaller; a negative n removes the bound.
func WithTasksPerCaller(n int) Option {
	return func(c *config) { c.taskLimit = n }
}

// errTaskTimedOut and errTaskCancelled are the causes that end a task's
// work: its budget ran out, or the task was cancelled (tasks/cancel, the
// end of its session).
var (
	errTaskTimedOut  = errors.New("mcpwrap: task timeout")
	errTaskCancelled = errors.New("mcpwrap: task cancelled")
)

// createdWait bounds how long the end of a task's work waits for the SDK
// to report the task's id (it does so as it answers the creating request,
// which the work may outrun).
const createdWait = 5 * time.Second

// task is one call an SDK runs as a task: admitted at its creation by the
// layers that decide whether a call runs (admitCall, the per-caller
// bound), its work run later by the inner layers with the task's own
// budget. It holds its bulkhead slot and its caller's count from its
// creation until its handler returns.
type task struct {
	cfg    *config
	rec    record // the creation's
	adm    admitted
	caller string
	budget time.Duration
	// created is closed once the SDK said whether it created the task.
	created chan struct{}
	mu      sync.Mutex
	id      string
	cancel  context.CancelCauseFunc // the work's, once it runs
	stopped bool                    // Cancel came
	freed   atomic.Bool
}

// startTask runs the admitting layers for req, which the SDK is about to
// run as a task with a TTL of ttl (0: none). When they refuse it, the
// answer is the one the call would get in place, and the SDK must not
// create the task.
func (w *Wrapper) startTask(ctx context.Context, req *call.Request, ttl time.Duration) (*task, answer, bool) {
	cfg := w.configFor(req)
	t := &task{cfg: cfg, created: make(chan struct{})}
	ctx = t.rec.start(ctx, cfg, req, "")
	var o outcome
	adm, ok := admitCall(ctx, req, cfg, &t.rec, &o)
	if ok {
		t.caller = req.TaskCaller(ctx)
		if e := cfg.taskCounts.Take(t.caller, cfg.tasksPerCaller(), cfg.retryAfter()); e != nil {
			adm.leave()
			o.err, o.sideEffects, ok = e, errmap.SideEffectsNone, false
		}
	}
	if !ok {
		return nil, finish(ctx, cfg, &t.rec, req, &o), false
	}
	t.adm = adm
	t.budget = cfg.taskBudget(ttl)
	t.rec.id()
	return t, answer{}, true
}

// Created ends the creation's observation: its log line (outcome
// task_created, the task id) and span.
func (t *task) Created(ctx context.Context, id string) {
	t.mu.Lock()
	t.id = id
	t.mu.Unlock()
	t.rec.outcome = obs.OutcomeTaskCreated
	t.rec.taskID = id
	t.rec.log(ctx)
	close(t.created)
}

// NotCreated records that the SDK did not create the task, answering err
// (a protocol error, call.ProtocolError), and gives back what the task
// held.
func (t *task) NotCreated(ctx context.Context, err error) {
	cause, code, class, _ := call.ProtocolOf(err)
	if cause == nil {
		cause = err
	}
	t.rec.passthrough(cause, code, class)
	t.rec.log(ctx)
	t.free()
	close(t.created)
}

// Cancel ends the task's work, now or as soon as it starts; the work's
// answer then says canceled. Safe to call more than once.
func (t *task) Cancel() {
	t.mu.Lock()
	t.stopped = true
	c := t.cancel
	t.mu.Unlock()
	if c != nil {
		c(errTaskCancelled)
	}
}

// Release gives back what the task holds, when its work runs outside the
// chain.
func (t *task) Release() { t.free() }

// free gives back the task's bulkhead slot and its caller's count, once.
func (t *task) free() {
	if t.freed.CompareAndSwap(false, true) {
		t.adm.leave()
		t.cfg.taskCounts.Give(t.caller)
	}
}

// Run runs the task's work: timeout(retry(recover(handler))) with the
// task's budget, then finish, which maps the outcome to the answer, cuts
// it to the cap and writes the work's own line and span (linked to the
// creation's, with the same call and task id). ctx must not end with the
// creating request (the adapter's job); Cancel ends it. A cancelled task
// returns context.Canceled with its answer.
func (t *task) Run(ctx context.Context, req *call.Request, h handler) (answer, error) {
	cfg := t.cfg
	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	t.mu.Lock()
	t.cancel = cancel
	if t.stopped {
		cancel(errTaskCancelled)
	}
	t.mu.Unlock()
	if t.budget > 0 {
		var stop context.CancelFunc
		wctx, stop = context.WithTimeoutCause(wctx, t.budget, errTaskTimedOut)
		defer stop()
	}
	var rec record
	rec.tool, rec.callID = t.rec.tool, t.rec.callID
	if cfg.observer != nil {
		wctx, rec.obs = cfg.observer.StartTask(wctx, req, rec.callID, t.rec.obs.SpanContext())
	}
	o, abandoned := t.work(wctx, req, h, &rec)
	o, cancelled := t.ended(ctx, req, o, abandoned, context.Cause(wctx))
	select {
	case <-t.created:
	case <-time.After(createdWait):
	}
	t.mu.Lock()
	rec.taskID = t.id
	t.mu.Unlock()
	a := finish(wctx, cfg, &rec, req, &o)
	if !abandoned {
		t.free()
	}
	if cancelled {
		return a, context.Canceled
	}
	return a, nil
}

// ended is the outcome of the task's work, which ended with o and the
// context cause cause: a cancellation, or the task's budget running out,
// takes the place of what the work returned when the work was abandoned
// or failed because of it.
func (t *task) ended(ctx context.Context, req *call.Request, o outcome, abandoned bool, cause error) (_ outcome, cancelled bool) {
	switch {
	case cause == errTaskCancelled && (abandoned || o.err != nil):
		return outcome{err: errs.Wrap(errs.Canceled, cause, "the task was cancelled"), sideEffects: errmap.SideEffectsOf(o.err)}, true
	case cause == errTaskTimedOut && (abandoned || (o.err != nil && o.panic == nil)):
		return outcome{err: errs.Wrap(errs.Timeout, cause, "the task of tool "+strconv.Quote(t.rec.tool)+" did not finish within "+
			t.budget.String()+"; the operation may still complete upstream"), sideEffects: timeoutSideEffects(ctx, t.cfg, req)}, false
	}
	return o, false
}

// work runs the inner layers on a goroutine of their own, so that the
// task ends on time (its budget, Cancel) even when the handler ignores its
// context; abandoned says it did, and then the handler keeps the task's
// slot and count until it returns, when a line says how late it was.
func (t *task) work(ctx context.Context, req *call.Request, h handler, rec *record) (outcome, bool) {
	var attempts atomic.Int32
	inner := record{tool: rec.tool, callID: rec.callID, obs: rec.obs, shared: &attempts}
	done := make(chan outcome, 1)
	var ho workers.Handoff
	go func() {
		var o outcome
		retry(ctx, req, h, t.cfg, &inner, &o)
		if t.cfg.caches.On() && mayWrite(ctx, req, t.cfg) {
			t.cfg.caches.Barrier(context.WithoutCancel(ctx), t.cfg.observer) // as cached does for a call in place
		}
		late, taken := ho.Finished()
		if taken {
			done <- o
			return
		}
		t.free()
		err, stack := o.ending()
		inner.obs.Late(late, err, stack)
	}()
	select {
	case o := <-done:
		rec.attempts = attempts.Load()
		return o, false
	case <-ctx.Done():
	}
	if !ho.Abandon() {
		o := <-done // it returned as the context ended
		rec.attempts = attempts.Load()
		return o, false
	}
	rec.attempts = attempts.Load()
	return outcome{detached: true}, true
}

// ending is what the outcome ended with: a panic and its stack, or an
// error, or neither.
func (o *outcome) ending() (error, []byte) {
	if o.panic != nil {
		return o.panic, o.panic.Stack
	}
	if o.err != nil {
		return o.err, nil
	}
	return nil, nil // not o.err: a nil *errs.Error would be a non-nil error
}

// tasksPerCaller is the per-caller bound of working tasks, 0 for none.
func (c *config) tasksPerCaller() int {
	switch {
	case c.taskLimit == 0:
		return DefaultTasksPerCaller
	case c.taskLimit < 0:
		return 0
	}
	return c.taskLimit
}

// retryAfter is the wait a refusal for lack of room suggests: the
// bulkhead's.
func (c *config) retryAfter() time.Duration {
	if c.bulk != nil {
		return c.bulk.RetryAfter()
	}
	return time.Second
}

// taskBudget is how long the work of a task with a TTL of ttl (0: none)
// may run, 0 for no bound.
func (c *config) taskBudget(ttl time.Duration) time.Duration {
	d := c.taskTimeout
	switch {
	case d == 0:
		d = DefaultTaskTimeout
	case d < 0:
		d = 0
	}
	if ttl > 0 && (d == 0 || ttl < d) {
		d = ttl
	}
	return d
}
