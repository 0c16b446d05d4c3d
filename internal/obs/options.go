package obs

import (
	"log/slog"
	"slices"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Option configures an Observer. Options are applied once, in New.
type Option func(*Config)

// Config is what the options set. Its type is exported so that the public
// observe package can declare options over it (observe.Option is a
// func(*obs.Config)); its fields stay unexported.
type Config struct {
	tp           trace.TracerProvider
	mp           metric.MeterProvider
	logger       *slog.Logger
	propagator   propagation.TextMapPropagator
	secretNames  []string
	recordArgs   bool
	recordResult bool
	maxArgBytes  int
	noTracing    bool
	noMetrics    bool
	// use is an Observer New returns as it is (Use).
	use *Observer
	// argument logging: values, names-only or none, for every tool (all)
	// or the named ones; names-only by default
	valuesAll, namesAll, noneAll       bool
	valuesTools, namesTools, noneTools map[string]bool
}

type argMode uint8

const (
	argsNames argMode = iota
	argsFull
	argsNone
)

// argMode is how tool's arguments are logged: what names the tool wins
// over what applies to every tool (wrap.ForTool's rule), none first, then
// names, then values; names and sizes by default.
func (c *Config) argMode(tool string) argMode {
	switch {
	case c.noneTools[tool]:
		return argsNone
	case c.namesTools[tool]:
		return argsNames
	case c.valuesTools[tool]:
		return argsFull
	case c.noneAll:
		return argsNone
	case c.namesAll:
		return argsNames
	case c.valuesAll:
		return argsFull
	}
	return argsNames
}

func addTools(m map[string]bool, tools []string) map[string]bool {
	out := make(map[string]bool, len(m)+len(tools))
	for k := range m {
		out[k] = true
	}
	for _, t := range tools {
		out[t] = true
	}
	return out
}

// DefaultMaxArgumentBytes caps the JSON of the arguments in a log line or
// span attribute; longer values are cut and marked. By default arguments
// are logged by name, JSON type and size, never their values
// ({"path":"<string, 12 bytes>"}); WithArgumentValues logs values, redacted.
const DefaultMaxArgumentBytes = 2048

// WithTracerProvider sets where spans go. Without it (and without
// WithoutTracing) the global otel.GetTracerProvider() is used, which is a
// no-op unless the program installed one.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *Config) { c.tp = tp }
}

// WithMeterProvider sets where metrics go. Without it the global
// otel.GetMeterProvider() is used.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *Config) { c.mp = mp }
}

// WithLogger sets the logger that receives one line per call. Nil (the
// default) means no log lines.
func WithLogger(l *slog.Logger) Option {
	return func(c *Config) { c.logger = l }
}

// WithPropagator sets how trace context is read from params._meta and HTTP
// headers. The default is W3C traceparent/tracestate plus baggage.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(c *Config) { c.propagator = p }
}

// WithSecretNames adds argument, field and header names whose values are
// redacted, on top of the default ones (password, passwd, pwd, passphrase,
// secret, token, apikey, accesskey, privatekey, authorization, auth,
// cookie, setcookie, credential(s), sessionid, clientsecret,
// proxyauthorization; matched case-insensitively, ignoring '-', '_', '.'
// and spaces, and as a suffix: "db_password", "X-Api-Key"). See also
// SecretNames.
func WithSecretNames(names ...string) Option {
	return func(c *Config) { c.secretNames = slices.Concat(c.secretNames, names) }
}

// WithArgumentsAttribute records the arguments as the log line has them
// (names, JSON types and sizes unless WithArgumentValues names the tool;
// size-capped) as the span attribute gen_ai.tool.call.arguments. Off by
// default: the semantic conventions make it opt-in because arguments are
// sensitive.
func WithArgumentsAttribute(on bool) Option {
	return func(c *Config) { c.recordArgs = on }
}

// WithResultAttribute records the (redacted, size-capped) result as the span
// attribute gen_ai.tool.call.result. Off by default.
func WithResultAttribute(on bool) Option {
	return func(c *Config) { c.recordResult = on }
}

// WithMaxArgumentBytes sets the cap of WithArgumentsAttribute and of the
// arguments in the log line (DefaultMaxArgumentBytes by default; 0 leaves
// arguments out of the log line).
func WithMaxArgumentBytes(n int) Option {
	return func(c *Config) { c.maxArgBytes = max(n, 0) }
}

// WithArgumentValues logs the values of the arguments of the named tools
// (of every tool when none is named), redacted: values under secret names
// (WithSecretNames adds to the defaults), fields tagged mcpwrap:"secret",
// secret-shaped values and PEM blocks never appear, and the JSON is capped
// at WithMaxArgumentBytes. Off by default, as the semantic conventions make
// gen_ai.tool.call.arguments opt-in: no list of names or shapes recognises
// every secret (a variable's value in an argument named "value"). The span
// attribute, when on (WithArgumentsAttribute), follows.
func WithArgumentValues(tools ...string) Option {
	return func(c *Config) {
		if len(tools) == 0 {
			c.valuesAll = true
			return
		}
		c.valuesTools = addTools(c.valuesTools, tools)
	}
}

// WithArgumentNamesOnly logs the arguments of the named tools (of every
// tool when none is named) as names, JSON types and sizes only, never
// their values: {"path":"<string, 12 bytes>","content":"<string, 4096
// bytes>"}. It is the default; it overrides WithArgumentValues for the
// tools it names (given without names, for the tools WithArgumentValues
// does not name). The span attribute gen_ai.tool.call.arguments, when on,
// follows.
func WithArgumentNamesOnly(tools ...string) Option {
	return func(c *Config) {
		if len(tools) == 0 {
			c.namesAll = true
			return
		}
		c.namesTools = addTools(c.namesTools, tools)
	}
}

// WithoutArguments leaves the arguments of the named tools (of every tool
// when none is named) out of the log line and the span. Secret values in
// them are still scrubbed from causes.
func WithoutArguments(tools ...string) Option {
	return func(c *Config) {
		if len(tools) == 0 {
			c.noneAll = true
			return
		}
		c.noneTools = addTools(c.noneTools, tools)
	}
}

// ArgMode is one of the three ways of logging arguments, as a value a
// configuration can hold and compare: the last of the Wrapper's options.
type ArgMode uint8

// The ArgModes; ArgsUnset leaves the observer's as it is.
const (
	ArgsUnset ArgMode = iota
	ArgsValues
	ArgsNames
	ArgsNone
)

// Option is the option for m, for the named tools (every tool when none
// is named); nil for ArgsUnset.
func (m ArgMode) Option(tools ...string) Option {
	switch m {
	case ArgsValues:
		return WithArgumentValues(tools...)
	case ArgsNames:
		return WithArgumentNamesOnly(tools...)
	case ArgsNone:
		return WithoutArguments(tools...)
	default:
		return nil
	}
}

// WithoutTracing turns spans off whatever the providers are.
func WithoutTracing() Option {
	return func(c *Config) { c.noTracing = true }
}

// WithoutMetrics turns metrics off whatever the providers are.
func WithoutMetrics() Option {
	return func(c *Config) { c.noMetrics = true }
}

// Use makes New return o whatever the other options say: how a test hands a
// Wrapper an Observer it built and inspects (internal/obstest.WithObserver).
func Use(o *Observer) Option {
	return func(c *Config) { c.use = o }
}
