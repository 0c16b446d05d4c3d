// Package export sends a Wrapper's telemetry to a backend: it builds the
// tracer and meter providers from the standard OTEL_* environment variables,
// with OTLP (gRPC or HTTP) exporters for traces and metrics and a Prometheus
// /metrics endpoint for metrics. It is its own package so that a server
// importing wrap or observe alone links no exporter and no gRPC.
//
//	tel, err := export.Setup(ctx, export.Config{ServiceName: "weather", Logger: logger})
//	if err != nil {
//		return err
//	}
//	defer func() {
//		if err := tel.Shutdown(context.Background()); err != nil {
//			logger.Error("telemetry flush", "error", err)
//		}
//	}()
//	w := wrap.New(wrap.WithLogger(logger), wrap.WithTelemetry(tel.Options()...))
//
// With nothing configured nothing is exported and nothing fails. Typical
// settings:
//
//	OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 OTEL_METRICS_EXPORTER=none   # traces to Jaeger
//	OTEL_METRICS_EXPORTER=prometheus                                              # scrape localhost:9464/metrics
//
// An exporter that starts failing (a dead collector, a backend that refuses
// metrics) is reported to the logger once, with a hint when the backend
// refuses the signal, and its recovery once; Shutdown returns the failure if
// it is still going on.
package export
