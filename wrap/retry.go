package wrap

import (
	"context"
	"log/slog"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/backoff"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/wait"
)

// RetryPolicy says how calls to safe tools are retried; see WithRetry. Zero
// fields take the defaults.
type RetryPolicy struct {
	// MaxRetries is how many times a call is repeated after its first
	// attempt: 0 means 2, a negative number means never.
	MaxRetries int
	// Initial caps the wait before the first retry (default 200ms); the cap
	// doubles with each retry up to Max. The wait is drawn uniformly between
	// 0 and the cap ("full jitter"), so retries from many calls spread out.
	Initial time.Duration
	// Max caps one wait (default 2s).
	Max time.Duration
	// MaxRetryAfter is the longest Retry-After (from an errs.RateLimited or
	// errs.Unavailable error) that is waited for (default 10s). It replaces
	// the backoff when present; a longer one ends the retries and the model
	// gets the error with its retry-after instead.
	MaxRetryAfter time.Duration
	// BudgetTokens and BudgetRatio are the retry budget, shared by the
	// handlers of one Wrapper, so an outage does not multiply the load on
	// the upstream: the bucket holds BudgetTokens (default 10), each failed
	// attempt takes one, each success puts back BudgetRatio (default 0.1),
	// and retries stop while the bucket is at half or less. (This is gRPC's
	// retry throttling.) A tool's policy given in ForTool shares the
	// Wrapper's budget when the Wrapper has a policy, and then its own
	// BudgetTokens and BudgetRatio are not used.
	BudgetTokens int
	BudgetRatio  float64
	// Idempotent declares the tools the policy is given for safe to
	// retry whatever their annotations say, for servers whose tools lack
	// them: give it in ForTool, for the tools it is true of.
	Idempotent bool

	// sleep waits for d or until ctx ends; nil uses a timer. Tests set it
	// (export_test.go) to observe the waits without spending them.
	sleep func(ctx context.Context, d time.Duration) error
}

// retryPolicy is RetryPolicy with the defaults filled in.
type retryPolicy struct {
	maxRetries    int
	backoff       backoff.Exponential
	maxRetryAfter time.Duration
	budgetTokens  int
	budgetRatio   float64
	idempotent    bool
	sleep         func(context.Context, time.Duration) error
}

func (p RetryPolicy) evaluate() retryPolicy {
	rp := retryPolicy{
		maxRetries: backoff.Retries(p.MaxRetries), maxRetryAfter: p.MaxRetryAfter,
		budgetTokens: p.BudgetTokens, budgetRatio: p.BudgetRatio, sleep: p.sleep,
		idempotent: p.Idempotent,
		backoff:    backoff.Exponential{Initial: p.Initial, Max: p.Max, Jitter: backoff.Full},
	}
	if rp.backoff.Initial <= 0 {
		rp.backoff.Initial = backoff.DefaultInitial
	}
	if rp.backoff.Max <= 0 {
		rp.backoff.Max = 2 * time.Second
	}
	rp.backoff.Max = max(rp.backoff.Max, rp.backoff.Initial)
	if rp.maxRetryAfter <= 0 {
		rp.maxRetryAfter = 10 * time.Second
	}
	if rp.budgetTokens <= 0 {
		rp.budgetTokens = 10
	}
	if rp.budgetRatio <= 0 {
		rp.budgetRatio = 0.1
	}
	if rp.sleep == nil {
		rp.sleep = wait.Sleep
	}
	return rp
}

// Reasons a retry did not happen, in the "retry_skipped" event.
const (
	skipUnsafe     = "tool not read-only or idempotent"
	skipExhausted  = "retries exhausted"
	skipDeadline   = "the wait would pass the call's deadline"
	skipRetryAfter = "retry-after longer than the policy allows"
	skipBudget     = "retry budget exhausted"
)

// retry is the retry layer, retry(recover(handler)): it runs attempt
// once and, when retries are on and the tool is safe to repeat, again
// after a transient failure. It reads the code each attempt classified.
func retry(ctx context.Context, req *call.Request, next handler, cfg *config, rec *record, o *outcome) {
	attempt(ctx, req, next, cfg, rec, o)
	if cfg.retry == nil || o.proto != nil {
		return
	}
	if o.err == nil || o.panic != nil {
		cfg.budget.Success()
		return
	}
	retryLoop(ctx, req, next, cfg, rec, o)
}

// skipReason is why the retry after failure n with e does not happen (""
// when it does), and the wait before it.
func skipReason(ctx context.Context, cfg *config, e *errs.Error, n int, safe bool) (string, time.Duration) {
	p := cfg.retry
	switch {
	case !safe:
		return skipUnsafe, 0
	case n > p.maxRetries:
		return skipExhausted, 0
	}
	ra := e.RetryAfter()
	delay := p.backoff.Wait(n, ra)
	if ra > p.maxRetryAfter {
		return skipRetryAfter, delay
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= delay {
		return skipDeadline, delay
	}
	if !cfg.budget.Allow() {
		return skipBudget, delay
	}
	return "", delay
}

func retryLoop(ctx context.Context, req *call.Request, next handler, cfg *config, rec *record, o *outcome) {
	p := cfg.retry
	safe, looked := false, false
	for n := 1; ; n++ {
		code := o.err.Code()
		if !code.Retryable() {
			return
		}
		cfg.budget.Failure()
		if ctx.Err() != nil {
			return
		}
		if !looked {
			safe, looked = safeToRetry(ctx, cfg, req), true
		}
		if !safe {
			o.sideEffects = errmap.SideEffectsOf(o.err)
		}
		reason, delay := skipReason(ctx, cfg, o.err, n, safe)
		if reason != "" {
			rec.retrySkipped(ctx, reason, code, n)
			return
		}
		rec.event(ctx, slog.LevelWarn, obs.EventRetry,
			slog.Int("attempt", n+1),
			slog.Float64("wait_ms", float64(delay.Microseconds())/1000),
			slog.String("code", code.String()),
			slog.String("cause", o.err.Error()))
		if p.sleep(ctx, delay) != nil {
			return
		}
		attempt(ctx, req, next, cfg, rec, o)
		if o.err == nil || o.panic != nil {
			cfg.budget.Success()
			return
		}
	}
}

// retrySkipped logs why attempt n was not retried, unless it was the first
// and retries were simply spent.
func (r *record) retrySkipped(ctx context.Context, reason string, code errs.Code, n int) {
	if n > 1 || reason != skipExhausted {
		r.event(ctx, slog.LevelDebug, "retry_skipped", slog.String("reason", reason), slog.String("code", code.String()))
	}
}

// safeToRetry reports whether repeating the call cannot do harm: the
// policy says RetryPolicy.Idempotent or the tool's annotations say
// read-only or idempotent. A tool the chain cannot find is not safe.
func safeToRetry(ctx context.Context, cfg *config, req *call.Request) bool {
	if cfg.retry != nil && cfg.retry.idempotent {
		return true
	}
	info := toolInfo(ctx, cfg, req)
	return info.Known && (info.ReadOnly || info.Idempotent)
}
