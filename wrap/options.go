package wrap

import (
	"log/slog"
	"maps"
	"time"

	"github.com/mcpwrap/mcpwrap/observe"
)

// Option configures a Wrapper. Options are applied once, at construction.
type Option func(*config)

// config is the evaluated form of the options. It is never changed after New
// returns; Tool copies it before applying per-tool options.
type config struct {
	logger   *slog.Logger
	observer *observe.Observer
	// ownObserver is set when observer was built here from logger, so that
	// a later WithLogger replaces it.
	ownObserver  bool
	timeout      time.Duration
	toolTimeouts map[string]time.Duration
}

// WithLogger sets the logger that receives one line per call (and the panic
// value and stack of a recovered panic), redacted, with no spans or metrics:
// a shortcut for WithObserver(observe.New(observe.WithLogger(l),
// observe.WithoutTracing(), observe.WithoutMetrics())). Nil means no
// logging, which is the default and the fastest path. WithObserver, when
// also given, wins.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		c.logger = l
		if c.ownObserver {
			c.observer, c.ownObserver = nil, false
		}
	}
}

// WithObserver sends every call to o: one JSON log line, an OpenTelemetry
// span following the MCP semantic conventions (the handler's context
// carries it) and metrics. Nil turns telemetry off.
func WithObserver(o *observe.Observer) Option {
	return func(c *config) { c.observer, c.ownObserver = o, false }
}

// WithTimeout sets a per-call timeout for every tool (0, the default, means
// none). When it fires, the handler's context is cancelled and the model gets
// a Timeout result at once, even if the handler ignores its context.
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout = max(d, 0) }
}

// WithToolTimeout sets the per-call timeout of one tool, overriding
// WithTimeout for it; 0 disables the timeout for that tool.
func WithToolTimeout(tool string, d time.Duration) Option {
	return func(c *config) {
		m := make(map[string]time.Duration, len(c.toolTimeouts)+1)
		maps.Copy(m, c.toolTimeouts)
		m[tool] = max(d, 0)
		c.toolTimeouts = m
	}
}

func newConfig(base config, opts []Option) config {
	c := base
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.observer == nil && c.logger != nil {
		c.observer = observe.New(observe.WithLogger(c.logger), observe.WithoutTracing(), observe.WithoutMetrics())
		c.ownObserver = true
	}
	return c
}

// timeoutFor returns the timeout of the named tool.
func (c *config) timeoutFor(tool string) time.Duration {
	if len(c.toolTimeouts) == 0 {
		return c.timeout
	}
	if d, ok := c.toolTimeouts[tool]; ok {
		return d
	}
	return c.timeout
}
