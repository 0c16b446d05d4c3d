package obs

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/internal/semconv"
)

// Event records something that happened during the call (a retry, a
// reconnect): a span event, a count for EventRetry and EventReconnect, and
// a log line tied to the call id. Secret-named attributes are redacted and
// text is capped and scrubbed; an attribute named "event" is renamed
// mcpwrap.event, since tracing backends show that key as the event's name.
func (c *Recording) Event(ctx context.Context, level slog.Level, name string, attrs ...slog.Attr) {
	if c == nil {
		return
	}
	if c.span != nil && c.span.IsRecording() {
		c.addSpanEvent(name, attrs)
	}
	if c.o.metrics {
		c.countEvent(ctx, name)
	}
	l := c.o.logger
	if l == nil || !l.Enabled(ctx, level) {
		return
	}
	all := make([]slog.Attr, 0, len(attrs)+5)
	all = append(all, slog.String(semconv.KeyTool, c.tool), slog.String(semconv.KeyCallID, c.callID),
		slog.String(semconv.KeyEvent, name))
	for _, a := range attrs {
		if a, ok := eventAttr(a, name); ok {
			all = append(all, c.o.logAttr(a, c.knownSecrets()))
		}
	}
	all = c.appendTraceIDs(all)
	l.LogAttrs(ctx, level, semconv.MsgToolCallEvent, all...)
}

// addSpanEvent adds the event to the call's span, with the attributes
// Event keeps, made safe for it.
func (c *Recording) addSpanEvent(name string, attrs []slog.Attr) {
	kv := make([]attribute.KeyValue, 0, len(attrs))
	for _, a := range attrs {
		if a, ok := eventAttr(a, name); ok {
			kv = append(kv, c.o.otelAttr(a, c.knownSecrets()))
		}
	}
	c.span.AddEvent(name, trace.WithAttributes(kv...))
}

// countEvent counts the events that have a metric: retries, reconnects.
func (c *Recording) countEvent(ctx context.Context, name string) {
	switch name {
	case EventRetry:
		c.o.retries.Add(ctx, 1, metric.WithAttributes(attribute.String(semconv.AttrToolName, c.tool)))
	case EventReconnect:
		c.o.reconnects.Add(ctx, 1, metric.WithAttributes(attribute.String(semconv.AttrToolName, c.tool)))
	}
}

// eventAttr drops an "event" attribute that repeats the event's name and
// renames any other, so that no attribute collides with the name.
func eventAttr(a slog.Attr, name string) (slog.Attr, bool) {
	if a.Key != semconv.KeyEvent {
		return a, true
	}
	if v := a.Value.Resolve(); v.Kind() == slog.KindString && v.String() == name {
		return a, false
	}
	a.Key = semconv.AttrEvent
	return a, true
}
