package upstream

import (
	"context"
	"log/slog"
	"time"
)

// Option configures a Holder. Options are applied once, in New.
type Option interface {
	apply(*settings)
}

type optionFunc func(*settings)

func (f optionFunc) apply(s *settings) { f(s) }

// settings is the evaluated form of the options.
type settings struct {
	close         any // func(C) error, checked in New
	health        any // func(context.Context, C) error, checked in New
	logger        *slog.Logger
	events        EventFunc
	threshold     int
	openBase      time.Duration
	openMax       time.Duration
	dialTimeout   time.Duration
	healthTimeout time.Duration
	now           func() time.Time
	mark          func(error) error
}

func defaults() settings {
	return settings{
		threshold:     5,
		openBase:      time.Second,
		openMax:       10 * time.Second,
		dialTimeout:   10 * time.Second,
		healthTimeout: 2 * time.Second,
		now:           time.Now,
	}
}

// WithClose sets the function that releases a client once it is marked
// broken or the Holder is closed, e.g. (*http.Client).CloseIdleConnections
// or (*client.Client).Close. It runs in its own goroutine, never under a
// lock. Its C must be the Holder's client type, or New panics.
func WithClose[C any](f func(C) error) Option {
	return optionFunc(func(s *settings) {
		if f != nil {
			s.close = f
		}
	})
}

// WithHealth sets a check that a freshly dialled client must pass before it
// is handed out (for example a GET of the upstream's health endpoint). A
// client that fails it counts as a failed dial. Its C must be the Holder's
// client type, or New panics.
func WithHealth[C any](f func(context.Context, C) error) Option {
	return optionFunc(func(s *settings) {
		if f != nil {
			s.health = f
		}
	})
}

// WithLogger sets the logger for dials, broken clients and breaker state
// changes. Nil, the default, logs nothing.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(s *settings) { s.logger = l })
}

// WithEvents sets a function that also receives every event; nil means none.
func WithEvents(f EventFunc) Option {
	return optionFunc(func(s *settings) { s.events = f })
}

// Policy sets when the breaker opens, how long it stays open and how long
// a dial may take. A zero field keeps its default.
type Policy struct {
	// Threshold is how many failures in a row open the breaker (default
	// 5): broken clients (each client counts once, however many calls
	// failed on it) and timed-out calls (each counts). A failed dial opens
	// it regardless.
	Threshold int
	// Backoff is the open window after the first opening (default 1s); it
	// doubles on each failed probe up to MaxBackoff, with equal jitter
	// (each window lies between half and all of its nominal length).
	//
	// MaxBackoff bounds how long callers are held off after the upstream
	// is back: a call goes through at most MaxBackoff after recovery, plus
	// the probe's own dial and health check. A lower one finds a recovered
	// upstream sooner; a higher one probes a long outage less often. It is
	// never below Backoff. Zero means Backoff when Backoff is set (the
	// window does not grow, as with the former WithBackoff(x, 0)), else the
	// default, 10s.
	Backoff, MaxBackoff time.Duration
	// DialTimeout bounds one dial plus its health check (default 10s). A
	// dial outlives the caller that started it if other callers wait for
	// it, so it runs on its own deadline rather than the first caller's.
	// It is also how long a probe holds the half-open state before another
	// caller may probe.
	DialTimeout time.Duration
	// HealthTimeout bounds the health check of a freshly dialled client
	// (default 2s, and never beyond the dial timeout). An upstream that
	// accepts connections but never answers fails its check in this time,
	// so the breaker opens and callers fail fast instead of each waiting
	// out its own timeout.
	HealthTimeout time.Duration
}

// WithPolicy sets the breaker's and the dial's bounds (see Policy).
func WithPolicy(p Policy) Option {
	return optionFunc(func(s *settings) {
		s.threshold = setOr(p.Threshold, s.threshold)
		s.openBase = setOr(p.Backoff, s.openBase)
		s.openMax = setOr(p.MaxBackoff, setOr(p.Backoff, s.openMax))
		s.openMax = max(s.openMax, s.openBase)
		s.dialTimeout = setOr(p.DialTimeout, s.dialTimeout)
		s.healthTimeout = setOr(p.HealthTimeout, s.healthTimeout)
	})
}

// setOr is v when a Policy sets it (positive), else kept.
func setOr[T int | time.Duration](v, kept T) T {
	if v > 0 {
		return v
	}
	return kept
}

// WithErrors sets a function through which every error of the client and of
// the dial passes before the Holder classifies it: how an SDK's own error
// values (an mcp-go session that ended, a transport failure) become the
// failures errs knows. For an mcp-go client pass mcpgo.MarkError.
func WithErrors(mark func(error) error) Option {
	return optionFunc(func(s *settings) { s.mark = mark })
}
