package limit

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/ratelimit"
)

// scopeName is the instrumentation scope of the denial counter.
const scopeName = "github.com/mcpwrap/mcpwrap/wrap/limit"

// scopeVersion is the version of the instrumentation scope.
const scopeVersion = "0.1.0"

// metricDenials counts refused calls, by tool and scope.
const metricDenials = "mcpwrap.tool.rate_limited"

// eventDenied is the span event of a refused call.
const eventDenied = "rate_limited"

// Attribute keys of the span event and the counter.
const (
	attrToolName   = "gen_ai.tool.name"
	attrScope      = "mcpwrap.limit.scope"
	attrRate       = "mcpwrap.limit.rate"
	attrRetryAfter = "mcpwrap.limit.retry_after_s"
)

// defaultBudget is how long a call waits for a shared store by default
// (WithStoreBudget): a loopback or same-zone Redis answers in a
// millisecond, and a stalled one must not hold every call for long.
const defaultBudget = 250 * time.Millisecond

// storeRetryAfter is the retryAfterSeconds of a call refused because the
// store failed (WithFailClosed).
const storeRetryAfter = time.Second

// Limiter admits or refuses tool calls; give it to wrap.WithLimit. A
// Limiter is safe for concurrent use.
type Limiter struct {
	cfg     config
	denials metric.Int64Counter // nil without metrics
	// fallback decides the calls the store could not: a local store at the
	// same rates, so that what a failed store lets through is bounded by
	// the limit on each replica. Nil when the store is local already.
	fallback *ratelimit.Local
	// failures counts the store calls that failed in a row; successes
	// counts the ones that answered. A failure of a call during which
	// another call succeeded is a slow or failed call, not an outage.
	failures  atomic.Int64
	successes atomic.Uint64
	// failingSince is when, in nanoseconds since epoch on the monotonic
	// clock, the current run of failures began.
	failingSince atomic.Int64
	// down is set while the store is counted as down, so that each
	// transition is logged once.
	down atomic.Bool
	// saidShared is set once the first call into the shared bucket was
	// logged.
	saidShared atomic.Bool
	// epoch makes the default clock read only the monotonic clock per call
	// (time.Since), not the wall clock as well (time.Now).
	epoch time.Time
}

// New returns a Limiter giving every tool a bucket of rate r per key
// (DefaultKey unless WithKey), kept in the process unless an option of
// package redislimit keeps it in Redis.
func New(r Rate, opts ...Option) *Limiter {
	c := config{rate: r, budget: defaultBudget}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.key == nil {
		c.key = DefaultKey
	}
	if c.store == nil {
		c.store = ratelimit.NewLocal(0)
	}
	c.logger = cmp.Or(c.logger, slog.Default())
	c.mp = cmp.Or(c.mp, otel.GetMeterProvider())
	l := &Limiter{cfg: c, epoch: time.Now()}
	if _, local := c.store.(*ratelimit.Local); !local {
		l.fallback = ratelimit.NewLocal(0)
	}
	l.denials = denialCounter(c.mp)
	return l
}

// denialCounter is the counter of refused calls; nil without metrics.
func denialCounter(mp metric.MeterProvider) metric.Int64Counter {
	if _, noop := mp.(metricnoop.MeterProvider); noop {
		return nil
	}
	m := mp.Meter(scopeName, metric.WithInstrumentationVersion(scopeVersion))
	d, err := m.Int64Counter(metricDenials, metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls refused by a rate limit."))
	if err != nil {
		otel.Handle(err)
		return nil
	}
	return d
}

func (l *Limiter) now() time.Time {
	if l.cfg.now != nil {
		return l.cfg.now()
	}
	return l.epoch.Add(time.Since(l.epoch))
}

// rateFor returns the rate of the named tool.
func (l *Limiter) rateFor(tool string) Rate {
	if r, ok := l.cfg.tools[tool]; ok {
		return r
	}
	return l.cfg.rate
}

// Admit takes a token for the call from its key's bucket and then from the
// server-wide ceiling; wrap's chain calls it (wrap.WithLimit). A refusal is
// an errs.RateLimited error naming the limit, with the wait until a call
// fits; it is also a "rate_limited" event on the call's span and a count in
// mcpwrap.tool.rate_limited. A nil Limiter admits everything. tool,
// session and header are what the key function sees as Call (see
// wrap.Limiter for what each holds).
func (l *Limiter) Admit(ctx context.Context, tool, session string, header http.Header) error {
	if l == nil {
		return nil
	}
	r := l.rateFor(tool)
	if r.isZero() && l.cfg.server.isZero() {
		return nil
	}
	// A shared store decides within the budget, both buckets and the
	// store's re-sends together. The caller's cancellation does not reach
	// it: a caller that gives up must not look like a store failure.
	sctx := ctx
	if l.fallback != nil {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), l.cfg.budget)
		defer cancel()
	}
	now := l.now()
	if !r.isZero() {
		if err := l.take(ctx, sctx, now, l.toolBucket(ctx, Call{Tool: tool, Session: session, Header: header}, r)); err != nil {
			return err
		}
	}
	if l.cfg.server.isZero() {
		return nil
	}
	return l.take(ctx, sctx, now, bucket("", Key{Scope: scopeServer}, l.cfg.server))
}

// toolBucket is the bucket of rate r that call takes from; the first call
// whose key is the shared one says so in the log.
func (l *Limiter) toolBucket(ctx context.Context, call Call, r Rate) ratelimit.Bucket {
	b := bucket(call.Tool, l.cfg.key(ctx, call), r)
	if b.Scope == scopeShared && !l.saidShared.Load() && l.saidShared.CompareAndSwap(false, true) {
		l.cfg.logger.LogAttrs(ctx, slog.LevelInfo, "rate limit: calls without a session, credential or known address share one bucket "+
			"(stateless HTTP without an Authorization header); send a credential, record the client address "+
			"(limit.HTTPContextFunc) or set limit.WithKey", slog.String(attrToolName, call.Tool))
	}
	return b
}

// bucket names the bucket of tool's calls by key at rate r.
func bucket(tool string, key Key, r Rate) ratelimit.Bucket {
	return ratelimit.Bucket{Tool: tool, Scope: key.Scope, ID: key.ID, Limit: r.Limit, Per: r.Per, Burst: r.capacity()}
}

// rateOf is the Rate of b, for the messages.
func rateOf(b ratelimit.Bucket) Rate { return Rate{Limit: b.Limit, Per: b.Per, Burst: b.Burst} }

// take takes a token from b in the store, which decides within sctx's
// deadline; ctx is the call's, for the log and the span.
func (l *Limiter) take(ctx, sctx context.Context, now time.Time, b ratelimit.Bucket) error {
	successes := l.successes.Load()
	d, err := l.cfg.store.Take(sctx, now, b)
	if err != nil {
		return l.storeFailed(ctx, now, b, err, successes)
	}
	l.successes.Add(1)
	if l.failures.Load() != 0 {
		l.failures.Store(0)
	}
	if l.down.Load() && l.down.CompareAndSwap(true, false) {
		l.cfg.logger.LogAttrs(ctx, slog.LevelInfo, "rate-limit store answers again; limits apply")
	}
	if d.Allowed {
		return nil
	}
	return l.deny(ctx, b, d.RetryAfter)
}

// deny builds the refusal and records it.
func (l *Limiter) deny(ctx context.Context, b ratelimit.Bucket, after time.Duration) error {
	// Whole seconds, rounded up: the message and retryAfterSeconds agree,
	// and a model's next turn is seconds away anyway.
	after = max((after+time.Second-1)/time.Second*time.Second, time.Second)
	if l.denials != nil {
		l.denials.Add(ctx, 1, metric.WithAttributes(attribute.String(attrToolName, b.Tool), attribute.String(attrScope, b.Scope)))
	}
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		span.AddEvent(eventDenied, trace.WithAttributes(
			attribute.String(attrScope, b.Scope),
			attribute.String(attrRate, rateOf(b).String()),
			attribute.Int64(attrRetryAfter, int64(after/time.Second))))
	}
	return errs.New(errs.RateLimited, describe(b), errs.RetryAfter(after))
}

// describe says which limit a bucket is, as the model reads it: `tool
// "search" allows 10 calls per minute per session`, `the server allows
// 1000 calls per minute in total`.
func describe(b ratelimit.Bucket) string {
	if b.Scope == scopeServer {
		return "the server allows " + rateOf(b).String() + " in total"
	}
	s := "tool " + strconv.Quote(b.Tool) + " allows " + rateOf(b).String()
	switch b.Scope {
	case scopeShared:
		return s + " shared by all callers without a session, credential or known address"
	case "":
		return s
	}
	return s + " per " + b.Scope
}

// outage counts a failed store call of a run with none answered and
// reports whether the run is an outage: ratelimit.OutageAfter failures,
// and, when they ran out of the budget (ratelimit.ErrSlow) rather than
// being refused, failing for ratelimit.SlowOutage.
func (l *Limiter) outage(err error) bool {
	since := time.Since(l.epoch)
	n := l.failures.Add(1)
	if n == 1 {
		l.failingSince.Store(int64(since))
	}
	if n < ratelimit.OutageAfter {
		return false
	}
	return !errors.Is(err, ratelimit.ErrSlow) || since-time.Duration(l.failingSince.Load()) >= ratelimit.SlowOutage
}

// noteOutage marks the store down, and logs it once, when err (the store
// failing a call made while successes calls had succeeded) makes an
// outage; it reports whether the store is down.
func (l *Limiter) noteOutage(ctx context.Context, err error, successes uint64) bool {
	if l.successes.Load() == successes && l.outage(err) && !l.down.Load() && l.down.CompareAndSwap(false, true) {
		mode := "fail open: each replica applies the limits on its own until it recovers"
		if l.cfg.failClosed {
			mode = "fail closed: calls are refused until it recovers"
		}
		l.cfg.logger.LogAttrs(ctx, slog.LevelWarn, "rate-limit store failed; "+mode,
			slog.String("error", err.Error()), slog.Int("failures", ratelimit.OutageAfter))
	}
	return l.down.Load()
}

// failOpen decides a call during an outage by the fallback, this
// replica's own buckets.
func (l *Limiter) failOpen(ctx context.Context, now time.Time, b ratelimit.Bucket) error {
	if l.fallback == nil {
		return nil
	}
	d, _ := l.fallback.Take(ctx, now, b)
	if d.Allowed {
		return nil
	}
	return l.deny(ctx, b, d.RetryAfter)
}

// errStoreFailed is the model's side of a refusal by a failed store.
var errStoreFailed = errors.New("the rate-limit store did not answer")

// storeFailed decides a call the store could not (after the store's own
// retry, if it has one). One failure is not an outage: when other calls
// were answered meanwhile (successes moved since the call started), or
// fewer than ratelimit.OutageAfter calls failed in a row (or, for calls
// that ran out of the budget, for less than ratelimit.SlowOutage), the call is
// refused as unavailable with a retry after storeRetryAfter, which never lets more
// calls through than the limit. An outage, logged once, is decided by the
// fallback: each replica applies the same rates on its own (fail open), or
// every call is refused (fail closed).
func (l *Limiter) storeFailed(ctx context.Context, now time.Time, b ratelimit.Bucket, err error, successes uint64) error {
	switch down := l.noteOutage(ctx, err, successes); {
	case down && !l.cfg.failClosed:
		return l.failOpen(ctx, now, b)
	case !down && l.cfg.logger.Enabled(ctx, slog.LevelDebug):
		l.cfg.logger.LogAttrs(ctx, slog.LevelDebug, "rate-limit store call failed; the call is refused with a retry",
			slog.String("error", err.Error()))
	}
	msg := "the server cannot check its rate limits right now"
	if b.Tool != "" {
		msg = "tool " + strconv.Quote(b.Tool) + " is not taking calls: its rate limit cannot be checked right now"
	}
	return errs.Wrap(errs.Unavailable, errors.Join(errStoreFailed, err), msg, errs.RetryAfter(storeRetryAfter))
}
