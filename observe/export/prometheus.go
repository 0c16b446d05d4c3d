package export

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/otlptranslator"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// Prometheus endpoint defaults, as the OpenTelemetry environment
// specification gives them.
const (
	defaultPrometheusHost = "localhost"
	defaultPrometheusPort = "9464"
)

// servePrometheus starts the /metrics endpoint on
// OTEL_EXPORTER_PROMETHEUS_HOST:OTEL_EXPORTER_PROMETHEUS_PORT and returns the
// reader to give the meter provider, the endpoint's URL and how to stop it.
// The registry is its own, so nothing registered elsewhere in the process
// (or by another Setup) shows up or collides.
func servePrometheus(logger *slog.Logger) (sdkmetric.Reader, string, func(context.Context) error, error) {
	reg := prometheus.NewRegistry()
	// Names as Prometheus writes them (mcp_server_operation_duration_seconds),
	// whatever the process-wide name validation scheme says.
	exp, err := otelprom.New(otelprom.WithRegisterer(reg),
		otelprom.WithTranslationStrategy(otlptranslator.UnderscoreEscapingWithSuffixes))
	if err != nil {
		return nil, "", nil, fmt.Errorf("export: Prometheus exporter: %w", err)
	}
	addr := net.JoinHostPort(envOr("OTEL_EXPORTER_PROMETHEUS_HOST", defaultPrometheusHost),
		envOr("OTEL_EXPORTER_PROMETHEUS_PORT", defaultPrometheusPort))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", nil, fmt.Errorf("export: Prometheus endpoint: %w", err)
	}
	errLog := slog.NewLogLogger(logger.Handler(), slog.LevelError)
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: errLog}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ErrorLog: errLog}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			logger.LogAttrs(context.Background(), slog.LevelError, "Prometheus endpoint stopped",
				slog.String("address", ln.Addr().String()), slog.String("error", err.Error()))
		}
	}()
	stop := func(ctx context.Context) error {
		err := srv.Shutdown(ctx)
		<-served
		return err
	}
	return exp, "http://" + ln.Addr().String() + "/metrics", stop, nil
}

func envOr(key, def string) string {
	if v := strings.TrimSpace(os.Getenv(key)); v != "" {
		return v
	}
	return def
}
