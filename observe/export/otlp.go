package export

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// exporters reads OTEL_<SIGNAL>_EXPORTER, a comma-separated list of
// exporter names. Unset, it is otlp when an OTLP endpoint is configured and
// nothing otherwise; "none" alone means nothing.
func exporters(signal string, supported ...string) ([]string, error) {
	key := "OTEL_" + signal + "_EXPORTER"
	v := strings.TrimSpace(os.Getenv(key))
	switch v {
	case "":
		if cmp.Or(os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), os.Getenv("OTEL_EXPORTER_OTLP_"+signal+"_ENDPOINT")) != "" {
			return []string{"otlp"}, nil
		}
		return nil, nil
	case "none":
		return nil, nil
	}
	var names []string
	for name := range strings.SplitSeq(v, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(supported, name) {
			return nil, fmt.Errorf("export: %s=%q: %q is not supported (%s, or none)", key, v, name, strings.Join(supported, ", "))
		}
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names, nil
}

// protocol reads OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL, then
// OTEL_EXPORTER_OTLP_PROTOCOL; the default is http/protobuf.
func protocol(signal string) string {
	return cmp.Or(strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_"+signal+"_PROTOCOL")),
		strings.TrimSpace(os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL")), "http/protobuf")
}

func traceExporter(ctx context.Context, proto string) (sdktrace.SpanExporter, error) {
	switch proto {
	case "grpc":
		return otlptracegrpc.New(ctx)
	case "http/protobuf":
		return otlptracehttp.New(ctx)
	}
	return nil, fmt.Errorf("export: OTLP protocol %q is not supported (grpc or http/protobuf)", proto)
}

func metricExporter(ctx context.Context, proto string) (sdkmetric.Exporter, error) {
	switch proto {
	case "grpc":
		return otlpmetricgrpc.New(ctx)
	case "http/protobuf":
		return otlpmetrichttp.New(ctx)
	}
	return nil, fmt.Errorf("export: OTLP protocol %q is not supported (grpc or http/protobuf)", proto)
}
