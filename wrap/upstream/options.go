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

// EventFunc receives the holder's events (a reconnect, a broken client, a
// breaker state change) with typed attributes, for example to add them to a
// trace as span events. It must not block.
type EventFunc func(ctx context.Context, name string, attrs ...slog.Attr)

// Event names passed to an EventFunc and used as the "event" attribute of
// log lines.
const (
	EventDial       = "upstream.dial"
	EventDialFailed = "upstream.dial_failed"
	EventBroken     = "upstream.broken"
	EventBreaker    = "upstream.breaker"
)

// settings is the evaluated form of the options.
type settings struct {
	close       any // func(C) error, checked in New
	health      any // func(context.Context, C) error, checked in New
	logger      *slog.Logger
	events      EventFunc
	threshold   int
	openBase    time.Duration
	openMax     time.Duration
	dialTimeout time.Duration
	now         func() time.Time
}

func defaults() settings {
	return settings{
		threshold:   5,
		openBase:    time.Second,
		openMax:     30 * time.Second,
		dialTimeout: 10 * time.Second,
		now:         time.Now,
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

// WithThreshold sets how many consecutive broken clients open the breaker
// (default 5). A failed dial opens it regardless.
func WithThreshold(n int) Option {
	return optionFunc(func(s *settings) {
		if n > 0 {
			s.threshold = n
		}
	})
}

// WithBackoff sets the breaker's open window: base after the first opening,
// doubling on each failed probe up to max, with jitter (each window is
// between half and all of its nominal length). Defaults: 1s and 30s.
func WithBackoff(base, max time.Duration) Option {
	return optionFunc(func(s *settings) {
		if base > 0 {
			s.openBase = base
		}
		if max >= s.openBase {
			s.openMax = max
		} else {
			s.openMax = s.openBase
		}
	})
}

// WithDialTimeout bounds one dial plus its health check (default 10s). A
// dial outlives the caller that started it if other callers wait for it, so
// it runs on its own deadline rather than the first caller's.
func WithDialTimeout(d time.Duration) Option {
	return optionFunc(func(s *settings) {
		if d > 0 {
			s.dialTimeout = d
		}
	})
}

// WithClock replaces time.Now, for tests of the open window.
func WithClock(now func() time.Time) Option {
	return optionFunc(func(s *settings) {
		if now != nil {
			s.now = now
		}
	})
}
