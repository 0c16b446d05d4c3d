package mcpgo

import (
	"github.com/mark3labs/mcp-go/tracing"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo/internal/mcptrace"
)

// MetaPropagator returns an OpenTelemetry-backed mcp-go
// tracing.MetaPropagator with w's propagator (wrap.WithTelemetry's, W3C
// trace context plus baggage by default): traceparent, tracestate and
// baggage as unprefixed keys of params._meta, for server.WithMetaPropagator
// (Attach adds it) and client.WithMetaPropagator. A nil w means
// wrap.New().
func MetaPropagator(w *wrap.Wrapper) tracing.MetaPropagator {
	return mcptrace.Meta{O: adapter.Observer(orNew(w))}
}

// HTTPPropagator returns an OpenTelemetry-backed mcp-go tracing.Propagator
// for HTTP headers with w's propagator, as MetaPropagator, for
// server.WithPropagator (Attach adds it) and client.WithPropagator. A nil
// w means wrap.New().
func HTTPPropagator(w *wrap.Wrapper) tracing.Propagator {
	return mcptrace.HTTP{O: adapter.Observer(orNew(w))}
}

// Tracer returns an OpenTelemetry-backed mcp-go tracing.Tracer writing to
// w's tracer provider (wrap.WithTelemetry's), for server.WithTracer and
// client.WithTracer. mcp-go's "mcp.<method>" spans are named "<method>"
// and its attributes renamed to the semantic conventions' keys; the
// tools/call server span is the one the chain completes, so there is
// never a second server span for a call. Status descriptions and recorded
// errors are redacted.
// Without telemetry on w it starts no spans. A nil w means wrap.New().
func Tracer(w *wrap.Wrapper) tracing.Tracer { return mcptrace.Tracer{O: adapter.Observer(orNew(w))} }
