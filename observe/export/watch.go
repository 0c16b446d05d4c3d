package export

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// watch reports one exporter's health to the logger: one line when it
// starts failing, one when it recovers, nothing per batch. Left to the SDK,
// every failed batch would go to the process-wide otel error handler (a line
// on stderr each time, whatever logger the server has); a watched exporter
// reports the failure here and tells the SDK the batch is done, and
// Telemetry.Shutdown returns the failure if it is still going on.
type watch struct {
	signal   string // "traces" or "metrics"
	exporter string // "otlp grpc", "otlp http/protobuf"
	logger   *slog.Logger

	mu    sync.Mutex
	err   error // the current outage's first error; nil while healthy
	batch int   // batches lost in the current outage
}

func (w *watch) done(ctx context.Context, err error) {
	if errors.Is(err, context.Canceled) && errors.Is(ctx.Err(), context.Canceled) {
		return // cut short by the SDK stopping the export, not the backend failing
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case err == nil && w.err != nil:
		w.logger.LogAttrs(ctx, slog.LevelInfo, "telemetry export recovered",
			slog.String("signal", w.signal), slog.String("exporter", w.exporter), slog.Int("lost_batches", w.batch))
		w.err, w.batch = nil, 0
	case err == nil:
	case w.err == nil:
		w.err, w.batch = err, 1
		w.logFailing(ctx, err)
	default:
		w.batch++
	}
}

// logFailing logs the first failure of an export, with a hint at its
// cause when there is one.
func (w *watch) logFailing(ctx context.Context, err error) {
	attrs := []slog.Attr{slog.String("signal", w.signal), slog.String("exporter", w.exporter), slog.String("error", err.Error())}
	if h := hint(w.signal, err); h != "" {
		attrs = append(attrs, slog.String("hint", h))
	}
	w.logger.LogAttrs(ctx, slog.LevelError, "telemetry export failing; "+w.signal+" are dropped until it recovers", attrs...)
}

// failure is the ongoing outage as an error, or nil.
func (w *watch) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		return nil
	}
	return fmt.Errorf("export: %s over %s failing, %d batches lost: %w", w.signal, w.exporter, w.batch, w.err)
}

// hint says what to do when the backend refuses the signal itself, as
// Jaeger does with metrics: 404 over HTTP, Unimplemented over gRPC.
func hint(signal string, err error) string {
	if status.Code(err) != codes.Unimplemented && !strings.Contains(err.Error(), " 404 Not Found") {
		return ""
	}
	s := strings.ToUpper(signal)
	h := "the endpoint does not accept OTLP " + signal
	if signal == "metrics" {
		h += " (Jaeger, for one, stores traces only)"
	}
	h += ": point OTEL_EXPORTER_OTLP_" + s + "_ENDPOINT at a backend that does, or set OTEL_" + s + "_EXPORTER=none"
	if signal == "metrics" {
		h += " or prometheus"
	}
	return h
}

type watchedSpans struct {
	sdktrace.SpanExporter
	w *watch
}

func (e watchedSpans) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	e.w.done(ctx, e.SpanExporter.ExportSpans(ctx, spans))
	return nil
}

type watchedMetrics struct {
	sdkmetric.Exporter
	w *watch
}

func (e watchedMetrics) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	e.w.done(ctx, e.Exporter.Export(ctx, rm))
	return nil
}
