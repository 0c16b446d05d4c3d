package cedarauthz

import (
	"log/slog"
	"time"
)

// DefaultInterval is how often Load's Policies look at their file when no
// WithInterval says otherwise.
const DefaultInterval = 2 * time.Second

// Option configures Load.
type Option func(*config)

type config struct {
	logger   *slog.Logger
	interval time.Duration
}

func newConfig(opts []Option) config {
	c := config{interval: DefaultInterval}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	return c
}

// WithLogger is where reloads are logged: a policy file that was loaded
// (Info) and one that failed to parse or to be read (Error, with the
// parser's message; the last good set stays in force). slog.Default() when
// nil or not given.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l != nil {
			c.logger = l
		}
	}
}

// WithInterval is how often the file's modification time and size are
// looked at (DefaultInterval by default). A change is loaded once the file
// has kept the same modification time and size for one more interval, so
// that a file caught half-written is not loaded. Zero or less watches
// nothing: the set changes only through Reload.
func WithInterval(d time.Duration) Option {
	return func(c *config) { c.interval = d }
}
