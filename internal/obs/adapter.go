package obs

import (
	"context"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/internal/redact"
)

// What an SDK adapter needs to connect the SDK's own tracing to an
// Observer. A server's code does not call these.

// Propagator returns the propagator the Observer reads trace context with;
// a nil Observer's is the default one.
func (o *Observer) Propagator() propagation.TextMapPropagator {
	if o == nil {
		return defaultPropagator
	}
	return o.prop
}

// Tracer returns the Observer's tracer; nil when tracing is off (or o is
// nil).
func (o *Observer) Tracer() trace.Tracer {
	if o == nil {
		return nil
	}
	return o.tracer
}

// OperatorText returns s as it may appear on a span or log line: capped,
// stripped of secrets and of control characters.
func (o *Observer) OperatorText(s string) string {
	return redact.SafeText(o.red.CapScrub(s, maxCauseBytes, nil))
}

// ContextWithServerSpan returns ctx carrying s, the SDK's own SERVER span
// for the request, which Start then names, attributes and completes instead
// of starting a second one.
func ContextWithServerSpan(ctx context.Context, s trace.Span) context.Context {
	return context.WithValue(ctx, serverSpanKey{}, s)
}

// MetaCarrier reads and writes trace context in params._meta: traceparent,
// tracestate and baggage as unprefixed keys.
type MetaCarrier map[string]any

// Get returns the string value of key.
func (m MetaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

// Set sets key to value.
func (m MetaCarrier) Set(key, value string) { m[key] = value }

// Keys returns the keys of m.
func (m MetaCarrier) Keys() []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
