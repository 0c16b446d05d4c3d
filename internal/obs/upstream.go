package obs

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/internal/semconv"
)

// Event names given to Recording.Event that also count in a metric:
// EventRetry in mcpwrap.tool.retries, EventReconnect in
// mcpwrap.tool.reconnects.
const (
	EventRetry     = "retry"
	EventReconnect = "reconnect"
)

// Names of wrap/upstream's events that UpstreamEvent knows (observe does not
// import wrap; the names are that package's documented constants).
const (
	upstreamDial = "upstream.dial"
	// upstreamKey is the attribute naming the upstream; on a span it
	// becomes mcpwrap.upstream.
	upstreamKey = "upstream"
)

// UpstreamEvent records an event of an upstream client; its signature is
// wrap/upstream's EventFunc, so upstream.WithEvents(w.UpstreamEvent), the
// Wrapper's method over this one, wires a Holder in. The event is added
// once, under its own name (a breaker change is one "upstream.breaker"
// event), to the span in ctx: the tool
// call's span when the holder is given the call's context. Its attributes
// are redacted like a call's; the "event" attribute, which repeats the name
// and which tracing backends would show in its place, is dropped, and
// "upstream" becomes mcpwrap.upstream. A reconnect (a dial after the
// first) counts in mcpwrap.tool.reconnects. Logging stays with the
// holder's logger. A nil Observer does nothing.
func (o *Observer) UpstreamEvent(ctx context.Context, name string, attrs ...slog.Attr) {
	if o == nil {
		return
	}
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		kv := make([]attribute.KeyValue, 0, len(attrs))
		for _, a := range attrs {
			a, ok := eventAttr(a, name)
			if !ok {
				continue
			}
			if a.Key == upstreamKey {
				a.Key = semconv.AttrUpstream
			}
			kv = append(kv, o.otelAttr(a, nil))
		}
		span.AddEvent(name, trace.WithAttributes(kv...))
	}
	if !o.metrics || name != upstreamDial {
		return
	}
	if upstream, gen := dialOf(attrs); gen > 1 {
		o.reconnects.Add(ctx, 1, metric.WithAttributes(attribute.String(semconv.AttrUpstream, upstream)))
	}
}

// dialOf reads a dial event's upstream and generation (0 if absent).
func dialOf(attrs []slog.Attr) (upstream string, gen uint64) {
	for _, a := range attrs {
		switch a.Key {
		case upstreamKey:
			upstream = a.Value.String()
		case "generation":
			if v := a.Value.Resolve(); v.Kind() == slog.KindUint64 {
				gen = v.Uint64()
			}
		}
	}
	return upstream, gen
}
