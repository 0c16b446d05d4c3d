package wrap

import (
	"log/slog"
	"slices"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/backoff"
	"github.com/mcpwrap/mcpwrap/internal/bulkhead"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/callcache"
	"github.com/mcpwrap/mcpwrap/internal/loopguard"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/policy"
	"github.com/mcpwrap/mcpwrap/internal/redact"
	"github.com/mcpwrap/mcpwrap/internal/roundstate"
	"github.com/mcpwrap/mcpwrap/internal/shutdown"
	"github.com/mcpwrap/mcpwrap/internal/workers"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap/process"
)

// Option configures a Wrapper. Options are applied once, at construction.
type Option func(*config)

// config is the evaluated form of the options. It is never changed after New
// returns; Tool copies it before applying per-tool options.
type config struct {
	logger *slog.Logger
	// telemetry are WithTelemetry's options; telemetryOn says it was given.
	telemetry   []observe.Option
	telemetryOn bool
	// obsBase is the observer built from logger and telemetry (nil when
	// neither is set); WithLogger and WithTelemetry reset it, so that a
	// tool given either gets its own.
	obsBase *obs.Observer
	// observer is obsBase logging arguments as argModes say and redacting
	// secrets too; what the chain uses.
	observer *obs.Observer
	// secrets are parameter names redacted in logs and scrubbed from error
	// results (Typed adds the fields tagged mcpwrap:"secret").
	secrets []string
	// red scrubs secrets from the messages of error results.
	red *redact.Redactor
	// public says which unclassified errors the model may read; nil: the
	// default rule (the text scrubbed, redact.Redactor.Public), unless
	// maskAll.
	public  func(error) bool
	maskAll bool // WithMaskedErrors
	timeout time.Duration
	// retry is nil when retries are off; budget is shared by the handlers
	// built from one evaluation of the options.
	retry  *retryPolicy
	budget *backoff.Budget
	// info is the definition of the tool a chain of its own serves (toolChain),
	// named infoName; zero for the Wrapper's own configuration.
	info     call.Info
	infoName string
	fatal    *shutdown.State
	// workers run the handlers of calls with a timeout.
	workers *jobPool
	bulk    *bulkhead.Bulkhead
	// noBulk is set when WithBulkhead turned the bulkhead off.
	noBulk bool
	limit  Limiter // nil: no rate limit
	// resultLimit caps a handler's result (WithResultLimit). A value
	// below 0 means no cap.
	resultLimit int
	loops       *loopguard.Guard // nil: no repeated-failure guard
	// bound is set when the tool's handler checks its arguments' shape
	// itself (a typed tool, adapter.Tool).
	bound bool
	// policy is WithAuthorization's, nil without one; scopes are
	// WithScopes', declared for the tool a chain of its own serves.
	policy *policy.Engine
	scopes []string
	scoped bool
	// states seals and opens multi round-trip states (WithStateKey).
	states *roundstate.States
	// progressIdle and progressCap are WithProgressTimeout's.
	progressIdle, progressCap time.Duration
	// taskTimeout and taskLimit are WithTaskTimeout's and
	// WithTasksPerCaller's; taskCounts counts the working tasks by caller.
	taskTimeout time.Duration
	taskLimit   int
	taskCounts  *bulkhead.Callers
	// args is the last of WithArgumentValues, WithArgumentNamesOnly and
	// WithoutArguments; ArgsUnset: names only.
	args obs.ArgMode
	// tools are ForTool's options by tool name, applied in New.
	tools map[string][]Option
	// cache is WithCache's, nil without one; caches are every cache of
	// the Wrapper, which a call of a tool that may write clears.
	cache  *cacheConfig
	caches *callcache.Hub
}

// DefaultResultLimit is the size a handler's result is cut to by default:
// 1 MiB, the budget FastMCP's response limiter uses, and about 250 000
// tokens — more than any model's context holds, so a cut result was never
// going to be read whole.
const DefaultResultLimit = 1 << 20

// WithResultLimit caps the size of every handler's own result (text,
// binary data, structured content; error results it built too) at n bytes:
// a larger one is cut (an error result keeps its head and its tail, and
// structured content is left out whole) with a note the model can act on,
// and the log line and span carry the original size. A success whose tool's
// output schema requires the structured content is answered with an error
// of code errs.ResultTooLarge that says the call succeeded. The cap is on by
// default: 0 restores DefaultResultLimit; a negative n turns the cap off.
// ForTool(name, WithResultLimit(n)) sets one tool's.
func WithResultLimit(n int) Option {
	return func(c *config) { c.resultLimit = n }
}

// resultLimitFor returns the cap of the results of the tools c serves, or
// -1.
func (c *config) resultLimitFor() int {
	switch n := c.resultLimit; {
	case n == 0:
		return DefaultResultLimit
	case n < 0:
		return -1
	default:
		return n
	}
}

// WithLogger sets the logger that receives one line per call (and the panic
// value and stack of a recovered panic), redacted: any *slog.Logger,
// observe.NewLogger's JSON lines or a bridge to the server's own logger
// (slog.New(h) for zap's zapslog, logrus through slog-logrus). Nil means
// no logging, which is the default and the fastest path. Given to one
// tool's chain, it applies to that tool only.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger, c.obsBase = l, nil }
}

// WithTelemetry turns on an OpenTelemetry span per call, following the MCP
// semantic conventions (the handler's context carries it), and the
// metrics, with the trace context read from params._meta and the HTTP
// headers. The options say where they go (observe.WithTracerProvider,
// WithMeterProvider, or export.Setup's Telemetry.Options()); without them
// the global providers are used. Given more than once, the options add up,
// a later one winning for the same setting; given to one tool's chain,
// they apply to that tool only. Without WithTelemetry there are no spans
// or metrics.
func WithTelemetry(opts ...observe.Option) Option {
	return func(c *config) {
		c.telemetry = append(slices.Clip(c.telemetry), opts...)
		c.telemetryOn, c.obsBase = true, nil
	}
}

// WithArgumentValues logs the values of the arguments of every tool (of
// one, given in ForTool), redacted: values under secret names
// (WithSecrets adds to the defaults), fields tagged mcpwrap:"secret",
// secret-shaped values and PEM blocks never appear, and the JSON is capped
// at 2 KiB. Off by default, as the semantic conventions make
// gen_ai.tool.call.arguments opt-in: no list of names or shapes recognises
// every secret (a variable's value in an argument named "value"). The span
// attribute, when on (observe.WithArgumentsAttribute), follows.
func WithArgumentValues() Option {
	return func(c *config) { c.args = obs.ArgsValues }
}

// WithArgumentNamesOnly logs the arguments of every tool (of one, given in
// ForTool) as names, JSON types and sizes only, never their values:
// {"path":"<string, 12 bytes>"}. That is the default. Of
// WithArgumentValues, WithArgumentNamesOnly and WithoutArguments, the last
// given wins.
func WithArgumentNamesOnly() Option {
	return func(c *config) { c.args = obs.ArgsNames }
}

// WithoutArguments leaves the arguments of every tool (of one, given in
// ForTool) out of the log line and span; secret values in them are still
// scrubbed from what is logged.
func WithoutArguments() Option {
	return func(c *config) { c.args = obs.ArgsNone }
}

// WithTimeout sets a per-call timeout for every tool (0, the default, means
// none; ForTool(name, WithTimeout(d)) sets one tool's, 0 turning it off for
// that tool). When it fires, the handler's context is cancelled and the
// model gets a Timeout result at once, even if the handler ignores its
// context.
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout = max(d, 0) }
}

// WithRetry turns on retries of safe tools with the given policy (the zero
// RetryPolicy gives the defaults: at most 2 retries, 200ms initial backoff
// with full jitter, capped at 2s, Retry-After up to 10s honoured, a shared
// retry budget). A tool is safe when its annotations say read-only or
// idempotent, or when the policy says RetryPolicy.Idempotent (given in
// ForTool for the tools whose annotations lack it); others are never
// retried, and their error result says whether the operation may have
// happened.
func WithRetry(p RetryPolicy) Option {
	return func(c *config) {
		rp := p.evaluate()
		c.retry = &rp
		// The Wrapper's budget stays shared by the tools given a policy
		// of their own (ForTool); newConfig makes one when there is none.
	}
}

// WithFatalExit makes an errs.Fatal error from a handler stop the process:
// the call is answered with an isError result, the cause is logged, the hooks
// run within f.Timeout, and f.Exit is called with f.Code (process.ExitFatal unless
// set). Without this option a Fatal error is answered and logged but the
// process keeps running.
func WithFatalExit(f process.FatalExit) Option {
	return func(c *config) { c.fatal = shutdown.New(f) }
}

// WithPublicErrors replaces the rule that decides which errors without an
// errs code the model may read (by default, every one, scrubbed: secrets,
// addresses and stacks replaced, a well-known client status such as "404
// Not Found" kept with its code, masked when nothing worth reading is left):
// an error for which public returns true is answered with its own
// text, scrubbed of secrets, as if the handler had returned a tool error
// result with it; the log line says outcome "tool_error" and masked false;
// any other such error is masked. Errors with an errs code, and standard
// errors errs classifies (a refused connection, a timeout), keep their code
// and sentence. public is called only for failed calls, from the handler's
// goroutine. A nil public restores the default rule.
func WithPublicErrors(public func(err error) bool) Option {
	return func(c *config) { c.public, c.maskAll = public, false }
}

// WithMaskedErrors masks every error without an errs code, whatever its
// text: the strict rule, for a server whose plain errors are all written
// for the operator. The log lines say masked, so the errors to move to
// errs codes can be listed from them (and mcpwrap vet lists them before
// the server runs).
func WithMaskedErrors() Option {
	return func(c *config) { c.public, c.maskAll = nil, true }
}

// WithSecrets adds parameter names whose values are secret: redacted on
// the log line and span, and scrubbed from every error result the model
// reads (the typed helpers add the fields tagged mcpwrap:"secret"). Given
// to one tool's chain, it applies to that tool only.
func WithSecrets(names ...string) Option {
	return func(c *config) {
		if len(names) > 0 {
			c.secrets = append(slices.Clip(c.secrets), names...)
		}
	}
}

func newConfig(base config, opts []Option) config {
	c := base
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	c.shareDefaults()
	c.finish()
	c.resilience()
	return c
}

// shareDefaults makes what the options did not give, or the base did not
// share: the observer, the retry budget, the job pool, the round states,
// the cache's state and the task counts.
func (c *config) shareDefaults() {
	if c.obsBase == nil && (c.logger != nil || c.telemetryOn) {
		c.obsBase = newObserver(c.logger, c.telemetryOn, c.telemetry)
	}
	if c.retry != nil && c.budget == nil {
		c.budget = backoff.NewBudget(c.retry.budgetTokens, c.retry.budgetRatio)
	}
	if c.workers == nil {
		c.workers = &jobPool{pool: workers.Pool[*job]{Do: (*job).run}}
	}
	if c.states == nil {
		c.states = roundstate.New(nil)
	}
	if c.cache != nil && c.cache.state == nil {
		c.cache.state = newCacheState(c.cache.c)
		c.caches.Add(c.cache.state.Kept)
	}
	if c.taskCounts == nil {
		c.taskCounts = new(bulkhead.Callers)
	}
}

// finish derives what the chain reads from the options: the observer that
// also redacts the secrets, and the redactor of error results.
func (c *config) finish() {
	c.observer = c.obsBase
	if c.observer != nil && c.args != obs.ArgsUnset {
		c.observer = c.observer.WithArguments(c.args.Option())
	}
	if c.observer != nil && len(c.secrets) > 0 {
		c.observer = c.observer.WithSecrets(c.secrets...)
	}
	if c.observer != nil {
		c.red = c.observer.Redactor()
	} else {
		c.red = redact.NewRedactor(c.secrets...)
	}
}

// newObserver builds the observer of logger l and, when on, of the
// telemetry options tel; without them, spans and metrics are off.
func newObserver(l *slog.Logger, on bool, tel []observe.Option) *obs.Observer {
	opts := make([]obs.Option, 0, len(tel)+3)
	opts = append(opts, obs.WithLogger(l))
	if !on {
		opts = append(opts, obs.WithoutTracing(), obs.WithoutMetrics())
	}
	for _, o := range tel {
		opts = append(opts, obs.Option(o))
	}
	return obs.New(opts...)
}

// timeoutFor returns the timeout of the calls c serves.
func (c *config) timeoutFor() time.Duration {
	if c.progressIdle > 0 {
		return c.progressCap // WithProgressTimeout's hard cap; the idle clock is withTimeout's
	}
	return c.timeout
}
