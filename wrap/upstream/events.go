package upstream

import (
	"context"
	"log/slog"
)

// EventFunc receives the holder's events (a dial, a failed dial, a broken
// client, a breaker state change) with typed attributes, for example to add
// them to a trace as span events. ctx is the calling tool's: the ctx given
// to Get, Do or Lease.Done. Every event comes once. The attributes are
// "upstream" (the Holder's name) and the event's own; the event's name is
// the name argument, not an attribute. It must not block. The names, also
// the "event" attribute of log lines, are:
//
//   - "upstream.dial": a client was dialled (and passed its health check).
//     Attributes: generation, duration_ms.
//   - "upstream.dial_failed": a dial or its health check failed.
//     Attributes: code, cause.
//   - "upstream.broken": a client was marked broken and will be redialled.
//     Attributes: generation, code, cause.
//   - "upstream.breaker": the breaker changed state. Attributes: from, to
//     ("closed", "open", "half_open"), and when opening retry_after_ms and
//     cause.
type EventFunc func(ctx context.Context, name string, attrs ...slog.Attr)

// The event names (see EventFunc).
const (
	eventDial       = "upstream.dial"
	eventDialFailed = "upstream.dial_failed"
	eventBroken     = "upstream.broken"
	eventBreaker    = "upstream.breaker"
)

func (h *Holder[C]) emitTransition(ctx context.Context, tr transition) {
	if !tr.changed() {
		return
	}
	attrs := []slog.Attr{slog.String("from", tr.from.String()), slog.String("to", tr.to.String())}
	level := slog.LevelInfo
	if tr.to == stOpen {
		level = slog.LevelWarn
		attrs = append(attrs, slog.Float64("retry_after_ms", float64(tr.window.Microseconds())/1000))
	}
	if tr.cause != nil {
		attrs = append(attrs, slog.String("cause", tr.cause.Error()))
	}
	h.emit(ctx, level, eventBreaker, "upstream circuit breaker "+tr.to.String(), attrs...)
}

// emit sends one event to the EventFunc and the logger. Only the log line
// carries the name as an "event" attribute: on a span event it would
// shadow the event's own name.
func (h *Holder[C]) emit(ctx context.Context, level slog.Level, name, msg string, attrs ...slog.Attr) {
	l := h.s.logger
	logOn := l != nil && l.Enabled(ctx, level)
	if !logOn && h.s.events == nil {
		return
	}
	all := make([]slog.Attr, 0, len(attrs)+2)
	all = append(all, slog.String("event", name), slog.String("upstream", h.name))
	all = append(all, attrs...)
	if h.s.events != nil {
		h.s.events(ctx, name, all[1:]...)
	}
	if logOn {
		l.LogAttrs(ctx, level, msg, all...)
	}
}
