package observe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Telemetry is what Setup configured. Its providers are not installed
// globally; pass Options() to New (or set them globally yourself).
type Telemetry struct {
	// TracerProvider exports spans over OTLP when an endpoint is
	// configured; otherwise it still creates spans, so that log lines carry
	// trace and span ids, but exports nothing.
	TracerProvider trace.TracerProvider
	// MeterProvider exports metrics over OTLP when an endpoint is
	// configured; otherwise it is a no-op.
	MeterProvider metric.MeterProvider
	// Propagator is W3C trace context plus baggage.
	Propagator propagation.TextMapPropagator
	// Exporting reports whether spans leave the process.
	Exporting bool

	shutdown []func(context.Context) error
}

// SetupOption configures Setup.
type SetupOption func(*setupConfig)

type setupConfig struct {
	service, version string
	getenv           func(string) string
}

// ServiceName sets service.name when OTEL_SERVICE_NAME (or service.name in
// OTEL_RESOURCE_ATTRIBUTES) does not; the default is the executable's name.
func ServiceName(name string) SetupOption { return func(c *setupConfig) { c.service = name } }

// ServiceVersion sets service.version.
func ServiceVersion(v string) SetupOption { return func(c *setupConfig) { c.version = v } }

// Setup configures tracer and meter providers from the standard OTEL_*
// environment variables: OTEL_SDK_DISABLED, OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_ENDPOINT (and the _TRACES_ /
// _METRICS_ variants, _HEADERS, _TIMEOUT, …), OTEL_EXPORTER_OTLP_PROTOCOL
// (grpc or http/protobuf, the default), OTEL_TRACES_EXPORTER and
// OTEL_METRICS_EXPORTER (otlp or none), OTEL_TRACES_SAMPLER and the batch
// settings. With nothing configured nothing is exported and nothing fails.
// Call Shutdown before exiting to flush.
func Setup(ctx context.Context, opts ...SetupOption) (*Telemetry, error) {
	c := setupConfig{getenv: os.Getenv, service: filepath.Base(os.Args[0])}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	t := &Telemetry{
		TracerProvider: tracenoop.NewTracerProvider(),
		MeterProvider:  metricnoop.NewMeterProvider(),
		Propagator:     propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
	}
	if disabled, _ := strconv.ParseBool(strings.TrimSpace(c.getenv("OTEL_SDK_DISABLED"))); disabled {
		return t, nil
	}
	attrs := []resource.Option{resource.WithAttributes(semconv.ServiceName(c.service))}
	if c.version != "" {
		attrs = append(attrs, resource.WithAttributes(semconv.ServiceVersion(c.version)))
	}
	res, err := resource.New(ctx, append(attrs, resource.WithTelemetrySDK(), resource.WithProcessRuntimeName(), resource.WithFromEnv())...)
	if err != nil && res == nil {
		return nil, fmt.Errorf("observe: resource: %w", err)
	}

	tracesOn, err := exporterWanted(c.getenv, "TRACES")
	if err != nil {
		return nil, err
	}
	topts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if tracesOn {
		exp, err := traceExporter(ctx, protocol(c.getenv, "TRACES"))
		if err != nil {
			return nil, err
		}
		topts = append(topts, sdktrace.WithBatcher(exp))
		t.Exporting = true
	}
	tp := sdktrace.NewTracerProvider(topts...)
	t.TracerProvider = tp
	t.shutdown = append(t.shutdown, tp.Shutdown)

	metricsOn, err := exporterWanted(c.getenv, "METRICS")
	if err != nil {
		_ = t.Shutdown(ctx)
		return nil, err
	}
	if metricsOn {
		exp, err := metricExporter(ctx, protocol(c.getenv, "METRICS"))
		if err != nil {
			_ = t.Shutdown(ctx)
			return nil, err
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
		t.MeterProvider = mp
		t.shutdown = append(t.shutdown, mp.Shutdown)
	}
	return t, nil
}

// Options returns the Observer options that use these providers.
func (t *Telemetry) Options() []Option {
	return []Option{WithTracerProvider(t.TracerProvider), WithMeterProvider(t.MeterProvider), WithPropagator(t.Propagator)}
}

// Shutdown flushes and stops the providers. Its method value has the type
// func(context.Context) error that shutdown hooks (and wrap's fatal path)
// take. Calling it more than once is harmless.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	var err error
	for _, f := range t.shutdown {
		err = errors.Join(err, f(ctx))
	}
	t.shutdown = nil
	return err
}

// exporterWanted reads OTEL_<SIGNAL>_EXPORTER and whether an OTLP endpoint
// is configured: otlp is used when asked for or when an endpoint is set.
func exporterWanted(getenv func(string) string, signal string) (bool, error) {
	switch v := strings.TrimSpace(getenv("OTEL_" + signal + "_EXPORTER")); v {
	case "none":
		return false, nil
	case "otlp":
		return true, nil
	case "":
		return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT") != "", nil
	default:
		return false, fmt.Errorf("observe: OTEL_%s_EXPORTER=%q is not supported (otlp or none)", signal, v)
	}
}

func protocol(getenv func(string) string, signal string) string {
	if p := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + signal + "_PROTOCOL")); p != "" {
		return p
	}
	if p := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROTOCOL")); p != "" {
		return p
	}
	return "http/protobuf"
}

func traceExporter(ctx context.Context, proto string) (sdktrace.SpanExporter, error) {
	switch proto {
	case "grpc":
		return otlptracegrpc.New(ctx)
	case "http/protobuf":
		return otlptracehttp.New(ctx)
	}
	return nil, fmt.Errorf("observe: OTLP protocol %q is not supported (grpc or http/protobuf)", proto)
}

func metricExporter(ctx context.Context, proto string) (sdkmetric.Exporter, error) {
	switch proto {
	case "grpc":
		return otlpmetricgrpc.New(ctx)
	case "http/protobuf":
		return otlpmetrichttp.New(ctx)
	}
	return nil, fmt.Errorf("observe: OTLP protocol %q is not supported (grpc or http/protobuf)", proto)
}
