package obstest

import (
	"context"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// Recorder is an Observer whose spans, metric points and JSON log lines
// stay in memory for the test to read.
type Recorder struct {
	Spans  *tracetest.SpanRecorder
	TP     *sdktrace.TracerProvider
	Reader *sdkmetric.ManualReader
	MP     *sdkmetric.MeterProvider
	Logs   *logbuf.Buffer
	Obs    *obs.Observer
}

// Record builds a Recorder. Its Observer takes opts after its own, so that
// obs.WithoutMetrics() or obs.WithLogger(nil) turn a part off. The
// providers are shut down when tb's test ends (never, when tb is nil).
func Record(tb testing.TB, opts ...obs.Option) *Recorder {
	r := &Recorder{Spans: tracetest.NewSpanRecorder(), Reader: sdkmetric.NewManualReader(), Logs: &logbuf.Buffer{}}
	r.TP = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r.Spans))
	r.MP = sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.Reader))
	if tb != nil {
		tb.Cleanup(func() { _ = r.TP.Shutdown(context.Background()); _ = r.MP.Shutdown(context.Background()) })
	}
	r.Obs = obs.New(append([]obs.Option{
		obs.WithTracerProvider(r.TP), obs.WithMeterProvider(r.MP), obs.WithLogger(r.Logs.Logger()),
	}, opts...)...)
	return r
}

// Option makes a Wrapper report to r (WithObserver(r.Obs)).
func (r *Recorder) Option() wrap.Option { return WithObserver(r.Obs) }
