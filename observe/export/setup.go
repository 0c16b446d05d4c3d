package export

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpwrap/mcpwrap/observe"
)

// Telemetry is what Setup configured. Its providers are not installed
// globally; pass Options() to wrap.WithTelemetry (or set them globally
// yourself).
// Its methods are safe for concurrent use.
type Telemetry struct {
	// TracerProvider exports spans over OTLP when an endpoint is
	// configured; otherwise it still creates spans, so that log lines carry
	// trace and span ids, but exports nothing.
	TracerProvider trace.TracerProvider
	// MeterProvider exports metrics over OTLP, serves them to Prometheus,
	// or both, as OTEL_METRICS_EXPORTER says; otherwise it is a no-op.
	MeterProvider metric.MeterProvider
	// Propagator is W3C trace context plus baggage.
	Propagator propagation.TextMapPropagator
	// Exporting reports whether spans leave the process.
	Exporting bool
	// MetricsURL is the Prometheus scrape address (http://host:port/metrics)
	// when OTEL_METRICS_EXPORTER includes prometheus, and empty otherwise.
	MetricsURL string

	mu       sync.Mutex
	shutdown []func(context.Context) error
	watches  []*watch
}

// Setup configures tracer and meter providers from the standard OTEL_*
// environment variables: OTEL_SDK_DISABLED, OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_ENDPOINT (and the _TRACES_ /
// _METRICS_ variants, _HEADERS, _TIMEOUT, …), OTEL_EXPORTER_OTLP_PROTOCOL
// (grpc or http/protobuf, the default), OTEL_TRACES_EXPORTER (otlp or
// none), OTEL_METRICS_EXPORTER (otlp, prometheus, both comma-separated, or
// none), OTEL_EXPORTER_PROMETHEUS_HOST and _PORT (localhost:9464 by
// default), OTEL_TRACES_SAMPLER, OTEL_METRIC_EXPORT_INTERVAL and the batch
// settings. An unset OTEL_<SIGNAL>_EXPORTER means otlp when an OTLP endpoint
// is set and none otherwise, so with nothing configured nothing is exported
// and nothing fails.
//
// Export failures go to cfg.Logger once per outage; Shutdown, which
// flushes and must be called before exiting, also returns them.
func Setup(ctx context.Context, cfg Config) (*Telemetry, error) {
	c := config{service: cfg.ServiceName, version: cfg.ServiceVersion, logger: cfg.Logger}
	if c.service == "" {
		c.service = filepath.Base(os.Args[0])
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	t := &Telemetry{
		TracerProvider: tracenoop.NewTracerProvider(),
		MeterProvider:  metricnoop.NewMeterProvider(),
		Propagator:     propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
	}
	if disabled, _ := strconv.ParseBool(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED"))); disabled {
		return t, nil
	}
	res, err := newResource(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := t.traces(ctx, c, res); err != nil {
		return nil, err
	}
	if err := t.metrics(ctx, c, res); err != nil {
		_ = t.Shutdown(ctx)
		return nil, err
	}
	return t, nil
}

func newResource(ctx context.Context, c config) (*resource.Resource, error) {
	attrs := []resource.Option{resource.WithAttributes(semconv.ServiceName(c.service))}
	if c.version != "" {
		attrs = append(attrs, resource.WithAttributes(semconv.ServiceVersion(c.version)))
	}
	res, err := resource.New(ctx, append(attrs, resource.WithTelemetrySDK(), resource.WithProcessRuntimeName(), resource.WithFromEnv())...)
	if err != nil {
		if res == nil {
			return nil, fmt.Errorf("export: resource: %w", err)
		}
		// A partial resource (say, a malformed OTEL_RESOURCE_ATTRIBUTES
		// entry) still names the service; say what was dropped.
		c.logger.LogAttrs(ctx, slog.LevelWarn, "telemetry resource is incomplete", slog.String("error", err.Error()))
	}
	return res, nil
}

// traces always installs an SDK tracer provider, exporting or not, so that
// log lines carry trace and span ids.
func (t *Telemetry) traces(ctx context.Context, c config, res *resource.Resource) error {
	names, err := exporters("TRACES", "otlp")
	if err != nil {
		return err
	}
	topts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if len(names) > 0 {
		proto := protocol("TRACES")
		exp, err := traceExporter(ctx, proto)
		if err != nil {
			return err
		}
		w := &watch{signal: "traces", exporter: "otlp " + proto, logger: c.logger}
		t.watches = append(t.watches, w)
		topts = append(topts, sdktrace.WithBatcher(watchedSpans{exp, w}))
		t.Exporting = true
	}
	tp := sdktrace.NewTracerProvider(topts...)
	t.TracerProvider = tp
	t.shutdown = append(t.shutdown, tp.Shutdown)
	return nil
}

func (t *Telemetry) metrics(ctx context.Context, c config, res *resource.Resource) error {
	names, err := exporters("METRICS", "otlp", "prometheus")
	if err != nil || len(names) == 0 {
		return err
	}
	mopts := []sdkmetric.Option{sdkmetric.WithResource(res)}
	var stopServer func(context.Context) error
	if slices.Contains(names, "prometheus") {
		reader, url, stop, err := servePrometheus(c.logger)
		if err != nil {
			return err
		}
		t.MetricsURL, stopServer = url, stop
		mopts = append(mopts, sdkmetric.WithReader(reader))
	}
	if slices.Contains(names, "otlp") {
		proto := protocol("METRICS")
		exp, err := metricExporter(ctx, proto)
		if err != nil {
			if stopServer != nil {
				_ = stopServer(ctx)
			}
			return err
		}
		w := &watch{signal: "metrics", exporter: "otlp " + proto, logger: c.logger}
		t.watches = append(t.watches, w)
		mopts = append(mopts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(watchedMetrics{exp, w})))
	}
	mp := sdkmetric.NewMeterProvider(mopts...)
	t.MeterProvider = mp
	t.shutdown = append(t.shutdown, mp.Shutdown)
	if stopServer != nil { // after the provider, so a last scrape can still read it
		t.shutdown = append(t.shutdown, stopServer)
	}
	return nil
}

// Options returns the observe options that use these providers, for
// wrap.WithTelemetry(tel.Options()...).
func (t *Telemetry) Options() []observe.Option {
	return []observe.Option{
		observe.WithTracerProvider(t.TracerProvider),
		observe.WithMeterProvider(t.MeterProvider),
		observe.WithPropagator(t.Propagator),
	}
}

// Shutdown flushes and stops the providers and the Prometheus endpoint. It
// returns their errors and, for each exporter whose last export failed, that
// failure. Its method value has the type func(context.Context) error that
// shutdown hooks (and wrap's fatal path) take. Calling it more than once is
// harmless.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var err error
	for _, f := range t.shutdown {
		err = errors.Join(err, f(ctx))
	}
	t.shutdown = nil
	for _, w := range t.watches {
		err = errors.Join(err, w.failure())
	}
	t.watches = nil
	return err
}
