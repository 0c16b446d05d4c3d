package outbound

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/wait"
)

// Option configures a Client.
type Option func(*config)

type config struct {
	logger     *slog.Logger
	clientName string
	retry      bool
	limits     RetryLimits
	idempotent func(tool string) bool
	sleep      func(ctx context.Context, d time.Duration) error
	now        func() time.Time
}

func defaults() config {
	return config{
		idempotent: func(string) bool { return false },
		sleep:      wait.Sleep,
		now:        time.Now,
	}
}

// WithLogger logs one record per call to l. Without it nothing is logged.
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithClientName sets the "client" field of the log record, e.g.
// "gateway@1.4.0".
func WithClientName(name string) Option { return func(c *config) { c.clientName = name } }

// WithRetry turns on automatic retries, as Advise decides them within
// limits, for the tools WithIdempotent accepts. Off by default: a failed
// call is reported, not repeated.
func WithRetry(limits RetryLimits) Option {
	return func(c *config) { c.retry, c.limits = true, limits }
}

// WithIdempotent says which tools are safe to repeat (read-only or
// idempotent). Nothing is, by default. nil keeps the default.
func WithIdempotent(f func(tool string) bool) Option {
	return func(c *config) {
		if f != nil {
			c.idempotent = f
		}
	}
}

// WithSleep replaces the wait between retries (tests pass one that records
// the delay and returns at once). nil keeps the default, which honours ctx.
func WithSleep(f func(ctx context.Context, d time.Duration) error) Option {
	return func(c *config) {
		if f != nil {
			c.sleep = f
		}
	}
}

// WithClock replaces time.Now for the log's durations. nil keeps time.Now.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}

// IdempotentTools returns a predicate for WithIdempotent that accepts the
// named tools.
func IdempotentTools(names ...string) func(string) bool {
	names = slices.Clone(names)
	return func(tool string) bool { return slices.Contains(names, tool) }
}

// IdempotentFromAnnotations returns a predicate for WithIdempotent that
// accepts tools whose annotations say readOnlyHint or idempotentHint. The
// annotations are the server's claims: use it only with servers you trust.
func IdempotentFromAnnotations(tools []mcp.Tool) func(string) bool {
	var names []string
	for _, t := range tools {
		a := t.Annotations
		if (a.ReadOnlyHint != nil && *a.ReadOnlyHint) || (a.IdempotentHint != nil && *a.IdempotentHint) {
			names = append(names, t.Name)
		}
	}
	return IdempotentTools(names...)
}

// RetryOrigin says who repeated a call: nobody, the SDK (this package's
// retries), the application's own logic, or a person.
type RetryOrigin uint8

// The retry origins, as the log record's retryOrigin field names them.
const (
	RetryNone RetryOrigin = iota
	RetrySDK
	RetryBusiness
	RetryManual
)

// String returns "none", "sdk", "business" or "manual".
func (o RetryOrigin) String() string {
	switch o {
	case RetrySDK:
		return "sdk"
	case RetryBusiness:
		return "business"
	case RetryManual:
		return "manual"
	}
	return "none"
}

// MarshalText makes a RetryOrigin its name in JSON.
func (o RetryOrigin) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

type originKey struct{}

// WithRetryOrigin marks calls made with ctx as repeats by the application
// (RetryBusiness) or a person (RetryManual), for the log record.
func WithRetryOrigin(ctx context.Context, o RetryOrigin) context.Context {
	return context.WithValue(ctx, originKey{}, o)
}
