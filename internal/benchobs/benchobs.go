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
// full (unless a sampler in opts says otherwise) and dropped at their end,
// and an SDK MeterProvider with a ManualReader; both are shut down when tb
// ends.
func Providers(tb testing.TB, opts ...sdktrace.TracerProviderOption) (*sdktrace.TracerProvider, *sdkmetric.MeterProvider) {
	tp := sdktrace.NewTracerProvider(append([]sdktrace.TracerProviderOption{sdktrace.WithSpanProcessor(discard{})}, opts...)...)
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	tb.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	return tp, mp
}

// Observer returns an Observer with a span, the metrics and a JSON log
// line per call, on Providers(tb, opts...).
func Observer(tb testing.TB, opts ...sdktrace.TracerProviderOption) *obs.Observer {
	tp, mp := Providers(tb, opts...)
	return obs.New(obs.WithTracerProvider(tp), obs.WithMeterProvider(mp),
		obs.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))
}

// NewLoggerObserver is Observer with NewLogger's JSON lines (the default
// logger) in place of slog.NewJSONHandler's.
func NewLoggerObserver(tb testing.TB, opts ...sdktrace.TracerProviderOption) *obs.Observer {
	tp, mp := Providers(tb, opts...)
	return obs.New(obs.WithTracerProvider(tp), obs.WithMeterProvider(mp),
		obs.WithLogger(obs.NewLogger(obs.WithLogOutput(io.Discard), obs.WithLogFormat("json"))))
}

// SampledOut is the sampler of the benchmarks' sampled_out form: a root
// span is recorded once in ten, a child as its parent was.
func SampledOut() sdktrace.TracerProviderOption {
	return sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0.1)))
}

// UnsampledParent is the _meta of a request whose caller's span was not
// sampled (a W3C traceparent with flags 00), as JSON for params._meta.
const UnsampledParent = `{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"}`

// discard is a span processor that drops every span it is handed.
type discard struct{}

func (discard) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (discard) OnEnd(sdktrace.ReadOnlySpan)                     {}
func (discard) Shutdown(context.Context) error                  { return nil }
func (discard) ForceFlush(context.Context) error                { return nil }
