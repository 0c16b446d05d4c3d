package limit

import (
	"context"
	"log/slog"
	"maps"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/mcpwrap/mcpwrap/internal/ratelimit"
)

// Option configures a Limiter. Options are applied once, in New.
type Option func(*config)

type config struct {
	rate       Rate
	tools      map[string]Rate
	server     Rate
	key        func(context.Context, Call) Key
	store      ratelimit.Store
	failClosed bool
	budget     time.Duration
	logger     *slog.Logger
	mp         metric.MeterProvider
	now        func() time.Time
}

// WithTool sets the rate of one tool, overriding New's rate for it; the
// zero Rate exempts the tool.
func WithTool(name string, r Rate) Option {
	return func(c *config) {
		m := make(map[string]Rate, len(c.tools)+1)
		maps.Copy(m, c.tools)
		m[name] = r
		c.tools = m
	}
}

// WithServerLimit adds a ceiling on all calls to the server together,
// whoever makes them, checked after the caller's own bucket. It bounds what
// callers with many keys (many sessions, many credentials) can do.
func WithServerLimit(r Rate) Option {
	return func(c *config) { c.server = r }
}

// WithKey replaces DefaultKey with f, which picks the key of a call. f must
// be safe for concurrent use and cheap: it runs on every call. Nil restores
// DefaultKey.
func WithKey(f func(ctx context.Context, c Call) Key) Option {
	return func(c *config) { c.key = f }
}

// WithFailClosed refuses every call while the store is down (the model
// gets an unavailable result with retryAfterSeconds). The default is to
// fail open, bounded: while the store is down (3 failures in a row), each replica applies the same rates with a local store of its
// own, so an outage of Redis never becomes an outage of the server and N
// replicas admit at most N times the limit. Either way a single failed
// call is refused with a retry, never run unchecked, and each change
// between "store answers" and "store fails" is logged once.
func WithFailClosed() Option {
	return func(c *config) { c.failClosed = true }
}

// WithStoreBudget bounds how long a call waits for a shared store (Redis)
// to decide it: every bucket it takes from and every re-send of the store
// together (250ms by default; a zero or negative d keeps it). A call the
// store has not decided by then counts as a failed store call: it is
// refused as unavailable with a retry, or, during an outage, decided by
// the fail mode (see WithFailClosed). A stalled store thus costs each call
// at most d. The local store answers at once and has no budget.
func WithStoreBudget(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.budget = d
		}
	}
}

// WithLogger sets the logger that hears of store failures and recoveries
// (once per transition). Nil, the default, means slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithMeterProvider sets the provider of the denial counter
// (mcpwrap.tool.rate_limited). Nil, the default, means otel.GetMeterProvider().
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.mp = mp }
}
