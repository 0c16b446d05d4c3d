package wrap

import (
	"context"
	"log/slog"
)

// UpstreamEvent records an event of a wrap/upstream Holder on the span of
// the call in ctx; its signature is upstream.EventFunc, so
// upstream.WithEvents(w.UpstreamEvent) wires a Holder in. The event is
// added once, under its own name (a breaker change is one
// "upstream.breaker" event), with its attributes redacted like a call's;
// a reconnect counts in the mcpwrap.tool.reconnects metric. Logging stays
// with the holder's logger. Without WithLogger or WithTelemetry it does
// nothing. It is safe for concurrent use.
func (w *Wrapper) UpstreamEvent(ctx context.Context, name string, attrs ...slog.Attr) {
	w.cfg.observer.UpstreamEvent(ctx, name, attrs...)
}
