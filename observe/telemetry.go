package observe

import (
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/internal/obs"
)

// Option configures the telemetry of a Wrapper: give the options to
// wrap.WithTelemetry, which evaluates them once, in wrap.New.
type Option func(*obs.Config)

// WithTracerProvider sets where spans go. Without it (and without
// WithoutTracing) the global otel.GetTracerProvider() is used, which is a
// no-op unless the program installed one.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return Option(obs.WithTracerProvider(tp))
}

// WithMeterProvider sets where metrics go. Without it the global
// otel.GetMeterProvider() is used.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return Option(obs.WithMeterProvider(mp))
}

// WithPropagator sets how trace context is read from params._meta and HTTP
// headers (and written by the adapters' client propagators). The default
// is W3C traceparent/tracestate plus baggage.
func WithPropagator(p propagation.TextMapPropagator) Option {
	return Option(obs.WithPropagator(p))
}

// WithArgumentsAttribute records the arguments as the log line has them
// (names, JSON types and sizes unless wrap.WithArgumentValues names the
// tool; capped at 2 KiB) as the span attribute gen_ai.tool.call.arguments.
// Off by default: the semantic conventions make it opt-in because
// arguments are sensitive.
func WithArgumentsAttribute(on bool) Option {
	return Option(obs.WithArgumentsAttribute(on))
}

// WithResultAttribute records the (redacted, size-capped) result as the span
// attribute gen_ai.tool.call.result. Off by default.
func WithResultAttribute(on bool) Option {
	return Option(obs.WithResultAttribute(on))
}

// WithoutTracing turns spans off whatever the providers are.
func WithoutTracing() Option {
	return Option(obs.WithoutTracing())
}

// WithoutMetrics turns metrics off whatever the providers are.
func WithoutMetrics() Option {
	return Option(obs.WithoutMetrics())
}
