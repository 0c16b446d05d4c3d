package observe

import (
	"log/slog"
	"slices"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Option configures an Observer. Options are applied once, in New.
type Option func(*config)

type config struct {
	tp           trace.TracerProvider
	mp           metric.MeterProvider
	logger       *slog.Logger
	propagator   propagation.TextMapPropagator
	secretNames  []string
	recordArgs   bool
	recordResult bool
	maxArgBytes  int
	transport    string
	noTracing    bool
	noMetrics    bool
}

// DefaultMaxArgumentBytes caps the JSON of the arguments in a log line or
// span attribute; longer values are cut and marked.
const DefaultMaxArgumentBytes = 2048

// WithTracerProvider sets where spans go. Without it (and without
// WithoutTracing) the global otel.GetTracerProvider() is used, which is a
// no-op unless the program installed one.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tp = tp }
}

// WithMeterProvider sets where metrics go. Without it the global
// otel.GetMeterProvider() is used.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.mp = mp }
}

// WithLogger sets the logger that receives one line per call. Nil (the
// default) means no log lines.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithPropagator sets how trace context is read from params._meta and HTTP
// headers. The default is W3C traceparent/tracestate plus baggage.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.propagator = p }
}

// WithSecretNames adds argument, field and header names whose values are
// redacted, on top of DefaultSecretNames. See also SecretNames.
func WithSecretNames(names ...string) Option {
	return func(c *config) { c.secretNames = slices.Concat(c.secretNames, names) }
}

// WithArgumentsAttribute records the (redacted, size-capped) arguments as
// the span attribute gen_ai.tool.call.arguments. Off by default: the
// semantic conventions make it opt-in because arguments are sensitive.
func WithArgumentsAttribute(on bool) Option {
	return func(c *config) { c.recordArgs = on }
}

// WithResultAttribute records the (redacted, size-capped) result as the span
// attribute gen_ai.tool.call.result. Off by default.
func WithResultAttribute(on bool) Option {
	return func(c *config) { c.recordResult = on }
}

// WithMaxArgumentBytes sets the cap of WithArgumentsAttribute and of the
// arguments in the log line (DefaultMaxArgumentBytes by default; 0 leaves
// arguments out of the log line).
func WithMaxArgumentBytes(n int) Option {
	return func(c *config) { c.maxArgBytes = max(n, 0) }
}

// WithTransport sets network.transport: "pipe" for stdio, "tcp" for HTTP.
// By default it is "tcp" when the request carries HTTP headers and "pipe"
// otherwise.
func WithTransport(t string) Option {
	return func(c *config) { c.transport = t }
}

// WithoutTracing turns spans off whatever the providers are.
func WithoutTracing() Option {
	return func(c *config) { c.noTracing = true }
}

// WithoutMetrics turns metrics off whatever the providers are.
func WithoutMetrics() Option {
	return func(c *config) { c.noMetrics = true }
}
