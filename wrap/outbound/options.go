package outbound

import (
	"context"
	"log/slog"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/wait"
)

// Option configures a Client (New), the RoundTripper of NewTransport or a
// classification (Classify). Each option says what it applies to; the others
// ignore it.
type Option func(*config)

type config struct {
	maxBytes   int64
	logger     *slog.Logger
	retry      bool
	limits     RetryLimits
	idempotent func(tool string) bool
	sleep      func(ctx context.Context, d time.Duration) error
	now        func() time.Time
}

// defaultMaxMessageBytes is the default read limit for one JSON-RPC
// message: a whole application/json body, or one SSE event.
const defaultMaxMessageBytes = 16 << 20

func defaults() config {
	return config{
		maxBytes:   defaultMaxMessageBytes,
		idempotent: func(string) bool { return false },
		sleep:      wait.Sleep,
		now:        time.Now,
	}
}

func configure(opts []Option) config {
	cfg := defaults()
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return cfg
}

// WithMaxMessageBytes sets the read limit for one JSON-RPC message (a JSON
// body or one SSE event) of NewTransport and Classify. A message past it
// gives OutcomeBodyTooLarge and reading stops. n <= 0 keeps the default,
// 16 MiB.
func WithMaxMessageBytes(n int64) Option {
	return func(c *config) {
		if n > 0 {
			c.maxBytes = n
		}
	}
}

// WithLogger makes a Client log one record per call to l. Without it
// nothing is logged. To name the calling side in every record, pass
// l.With("client", "gateway@1.4.0").
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithRetry turns on a Client's automatic retries, as Advise decides them
// within limits, for the tools WithIdempotent accepts. Off by default: a
// failed call is reported, not repeated.
func WithRetry(limits RetryLimits) Option {
	return func(c *config) { c.retry, c.limits = true, limits }
}

// WithIdempotent says which tools a Client may repeat (read-only or
// idempotent), e.g. func(tool string) bool { return tool == "get_forecast" },
// or IdempotentFromAnnotations. Nothing is, by default. nil keeps the default.
func WithIdempotent(f func(tool string) bool) Option {
	return func(c *config) {
		if f != nil {
			c.idempotent = f
		}
	}
}

// withSleep replaces the wait between retries (tests pass one that records
// the delay and returns at once). nil keeps the default, which honours ctx.
func withSleep(f func(ctx context.Context, d time.Duration) error) Option {
	return func(c *config) {
		if f != nil {
			c.sleep = f
		}
	}
}

// withClock replaces time.Now for the log's durations. nil keeps time.Now.
func withClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}

// IdempotentFromAnnotations returns a predicate for WithIdempotent that
// accepts tools whose annotations say readOnlyHint or idempotentHint. The
// annotations are the server's claims: use it only with servers you trust.
func IdempotentFromAnnotations(tools []mcp.Tool) func(string) bool {
	names := map[string]bool{}
	for _, t := range tools {
		a := t.Annotations
		if (a.ReadOnlyHint != nil && *a.ReadOnlyHint) || (a.IdempotentHint != nil && *a.IdempotentHint) {
			names[t.Name] = true
		}
	}
	return func(tool string) bool { return names[tool] }
}

// The retry origins, as the log record's retryOrigin field and
// Report.RetryOrigin name them.
const (
	retryNone     = "none"
	retrySDK      = "sdk"
	retryBusiness = "business"
	retryManual   = "manual"
)

type originKey struct{}

// BusinessRetry marks the calls made with the returned context as repeats
// the application's own logic decided: retryOrigin "business" in the log
// record and the Report.
func BusinessRetry(ctx context.Context) context.Context {
	return context.WithValue(ctx, originKey{}, retryBusiness)
}

// ManualRetry marks the calls made with the returned context as repeats a
// person asked for: retryOrigin "manual" in the log record and the Report.
func ManualRetry(ctx context.Context) context.Context {
	return context.WithValue(ctx, originKey{}, retryManual)
}
