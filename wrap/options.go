package wrap

import (
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/observe"
)

// Option configures a Wrapper. Options are applied once, at construction.
type Option func(*config)

// config is the evaluated form of the options. It is never changed after New
// returns; Tool copies it before applying per-tool options.
type config struct {
	// set says which option groups were given, so that a tool's own chain
	// takes from the Middleware's configuration what it left unset (see
	// inherit).
	set     setBits
	logger  *slog.Logger
	obsBase *observe.Observer // as given (or built from logger)
	// observer is obsBase redacting secrets too; what the chain uses.
	observer *observe.Observer
	// ownObserver is set when obsBase was built here from logger, so that
	// a later WithLogger replaces it.
	ownObserver bool
	// secrets are parameter names redacted in logs and scrubbed from error
	// results (Typed adds the fields tagged mcpwrap:"secret").
	secrets []string
	// red scrubs secrets from the messages of error results.
	red *observe.Redactor
	// public says which unclassified errors the model may read; nil: none.
	public       func(error) bool
	timeout      time.Duration
	toolTimeouts map[string]time.Duration
	// retry is nil when retries are off; budget is shared by the handlers
	// built from one evaluation of the options.
	retry      *retryPolicy
	budget     *budget
	retryTools map[string]bool
	// tool is the definition given to Tool; nil in the middleware form.
	tool  *mcp.Tool
	fatal *fatalState
	// workers run the handlers of calls with a timeout.
	workers *workers
	bulk    *bulkhead
	// noBulk is set when WithBulkhead turned the bulkhead off.
	noBulk bool
	limit  Limiter // nil: no rate limit
}

// WithLogger sets the logger that receives one line per call (and the panic
// value and stack of a recovered panic), redacted, with no spans or metrics:
// a shortcut for WithObserver(observe.New(observe.WithLogger(l),
// observe.WithoutTracing(), observe.WithoutMetrics())). Nil means no
// logging, which is the default and the fastest path. WithObserver, when
// also given, wins.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		c.set |= setTelemetry
		c.logger = l
		if c.ownObserver {
			c.obsBase, c.ownObserver = nil, false
		}
	}
}

// WithObserver sends every call to o: one JSON log line, an OpenTelemetry
// span following the MCP semantic conventions (the handler's context
// carries it) and metrics. Nil turns telemetry off.
func WithObserver(o *observe.Observer) Option {
	return func(c *config) { c.set |= setTelemetry; c.obsBase, c.ownObserver = o, false }
}

// WithTimeout sets a per-call timeout for every tool (0, the default, means
// none). When it fires, the handler's context is cancelled and the model gets
// a Timeout result at once, even if the handler ignores its context.
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.set |= setTimeout; c.timeout = max(d, 0) }
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

// WithRetry turns on retries of safe tools with the given policy (the zero
// RetryPolicy gives the defaults: at most 2 retries, 200ms initial backoff
// with full jitter, capped at 2s, Retry-After up to 10s honoured, a shared
// retry budget). A tool is safe when its annotations say read-only or
// idempotent, or WithRetryTools names it; others are never retried, and their
// error result says whether the operation may have happened.
func WithRetry(p RetryPolicy) Option {
	return func(c *config) {
		c.set |= setRetry
		rp := p.evaluate()
		c.retry = &rp
		c.budget = nil // a new policy gets its own budget, made in newConfig
	}
}

// WithRetryTools declares tools safe to retry whatever their annotations say,
// for servers whose tools lack them. It does not turn retries on; WithRetry
// does.
func WithRetryTools(names ...string) Option {
	return func(c *config) {
		m := make(map[string]bool, len(c.retryTools)+len(names))
		maps.Copy(m, c.retryTools)
		for _, n := range names {
			m[n] = true
		}
		c.retryTools = m
	}
}

// WithFatalExit makes an errs.Fatal error from a handler stop the process:
// the call is answered with an isError result, the cause is logged, the hooks
// run within f.Timeout, and f.Exit is called with f.Code (ExitFatal unless
// set). Without this option a Fatal error is answered and logged but the
// process keeps running.
func WithFatalExit(f FatalExit) Option {
	return func(c *config) { c.set |= setFatal; c.fatal = newFatalState(f) }
}

// WithPublicErrors declares which errors the model may read although they
// carry no errs code, for a server with its own error conventions (say, a
// UserError type whose text is written for the user): an error for which
// public returns true, and that errs would otherwise mask as internal, is
// answered with its own text, as if the handler had returned
// mcp.NewToolResultError(err.Error()); the log line says outcome
// "tool_error" and masked false. Errors with an errs code, and standard
// errors errs classifies (a refused connection, a timeout), keep their
// code and sentence. Secrets are scrubbed from the text like from any
// error result. public is called only for failed calls, from the handler's
// goroutine; nil (the default) shows no unclassified error.
func WithPublicErrors(public func(err error) bool) Option {
	return func(c *config) { c.set |= setPublic; c.public = public }
}

// setBits name the option groups a config was given.
type setBits uint8

const (
	setTelemetry setBits = 1 << iota // WithLogger, WithObserver
	setTimeout                       // WithTimeout
	setRetry                         // WithRetry
	setFatal                         // WithFatalExit
	setPublic                        // WithPublicErrors
	setBulkhead                      // WithBulkhead
	setLimit                         // WithLimit
)

// withSecrets adds parameter names whose values are secret (Typed's
// mcpwrap:"secret" fields).
func withSecrets(names ...string) Option {
	return func(c *config) {
		if len(names) > 0 {
			c.secrets = append(slices.Clip(c.secrets), names...)
		}
	}
}

// inherit returns the configuration of a tool's own chain running under
// the Middleware whose configuration is outer: every option group the tool
// was not given comes from outer, so that a tool registered with Tool or
// Typed never loses the middleware's logger, observer, timeout, retries or
// fatal exit. Per-tool timeouts and retry names are merged, the tool's
// winning.
func (c *config) inherit(outer *config) config {
	m := *c
	if c.set&setTelemetry == 0 {
		m.logger, m.obsBase, m.ownObserver = outer.logger, outer.obsBase, outer.ownObserver
	}
	if c.set&setTimeout == 0 {
		m.timeout = outer.timeout
	}
	if len(outer.toolTimeouts) > 0 {
		t := maps.Clone(outer.toolTimeouts)
		maps.Copy(t, c.toolTimeouts)
		m.toolTimeouts = t
	}
	if c.set&setRetry == 0 {
		m.retry, m.budget = outer.retry, outer.budget
	}
	if len(outer.retryTools) > 0 {
		t := maps.Clone(outer.retryTools)
		maps.Copy(t, c.retryTools)
		m.retryTools = t
	}
	if c.set&setFatal == 0 {
		m.fatal = outer.fatal
	}
	if c.set&setPublic == 0 {
		m.public = outer.public
	}
	if c.set&setBulkhead == 0 {
		m.bulk, m.noBulk = outer.bulk, outer.noBulk
	}
	if c.set&setLimit == 0 {
		m.limit = outer.limit
	}
	m.set |= outer.set
	m.secrets = slices.Concat(outer.secrets, c.secrets)
	m.finish()
	if c.set&setFatal != 0 && m.fatal != nil {
		m.fatal.adopt(m.observer)
	}
	return m
}

func newConfig(base config, opts []Option) config {
	c := base
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.obsBase == nil && c.logger != nil {
		c.obsBase = observe.New(observe.WithLogger(c.logger), observe.WithoutTracing(), observe.WithoutMetrics())
		c.ownObserver = true
	}
	if c.retry != nil && c.budget == nil {
		c.budget = newBudget(c.retry.budgetTokens, c.retry.budgetRatio)
	}
	if c.workers == nil {
		c.workers = new(workers)
	}
	c.finish()
	c.resilience()
	return c
}

// finish derives what the chain reads from the options: the observer that
// also redacts the secrets, and the redactor of error results.
func (c *config) finish() {
	c.observer = c.obsBase
	if c.observer != nil && len(c.secrets) > 0 {
		c.observer = c.observer.WithSecrets(c.secrets...)
	}
	if c.observer != nil {
		c.red = c.observer.Redactor()
	} else {
		c.red = observe.NewRedactor(c.secrets...)
	}
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
