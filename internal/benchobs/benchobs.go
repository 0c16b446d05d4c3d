// Package benchobs builds the observer of the side-by-side benchmarks,
// everything on and nothing exported: a JSON log line per call to
// io.Discard, a recorded SDK span dropped by its processor, the duration
// metric held by a ManualReader.
package benchobs

import (
	"context"
	"io"
	"log/slog"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpwrap/mcpwrap/internal/obs"
)

// Providers returns an SDK TracerProvider whose spans are recorded in
// full and dropped at their end, and an SDK MeterProvider with a
// ManualReader; both are shut down when tb ends.
func Providers(tb testing.TB) (*sdktrace.TracerProvider, *sdkmetric.MeterProvider) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(discard{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	tb.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	return tp, mp
}

// Observer returns an Observer with a span, the metrics and a JSON log
// line per call, on Providers.
func Observer(tb testing.TB) *obs.Observer {
	tp, mp := Providers(tb)
	return obs.New(obs.WithTracerProvider(tp), obs.WithMeterProvider(mp),
		obs.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))
}

// discard is a span processor that drops every span it is handed.
type discard struct{}

func (discard) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (discard) OnEnd(sdktrace.ReadOnlySpan)                     {}
func (discard) Shutdown(context.Context) error                  { return nil }
func (discard) ForceFlush(context.Context) error                { return nil }
