package export_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/observe/export"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// countGlobalErrors counts what reaches the process-wide otel error handler
// during the test: a watched exporter must send nothing there.
func countGlobalErrors(t *testing.T) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	prev := otel.GetErrorHandler()
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) { n.Add(1) }))
	t.Cleanup(func() { otel.SetErrorHandler(prev) })
	return &n
}

// waitFor polls cond until it holds or 20 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// setupAndCall sets telemetry up from the environment, logging to a
// buffer, and sends one successful call through a Wrapper that reports to
// it.
func setupAndCall(t *testing.T) (*export.Telemetry, *logbuf.Buffer) {
	t.Helper()
	logs := &logbuf.Buffer{}
	tel, err := export.Setup(t.Context(), export.Config{Logger: logs.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	call(t, wrap.New(wrap.WithTelemetry(tel.Options()...)), "ok")
	return tel, logs
}

func linesWith(t *testing.T, logs *logbuf.Buffer, msgPrefix string) []map[string]any {
	t.Helper()
	all, err := logs.Lines()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range all {
		if m, _ := l["msg"].(string); strings.HasPrefix(m, msgPrefix) {
			out = append(out, l)
		}
	}
	return out
}

// TestMetricsRefusedOverHTTPIsLoggedOnce: a backend answering 404 to OTLP
// metrics (Jaeger does) is reported once with a hint, however many batches
// fail, nothing goes to the global otel handler, and the recovery is
// reported once too.
func TestMetricsRefusedOverHTTPIsLoggedOnce(t *testing.T) {
	global := countGlobalErrors(t)
	var refuse atomic.Bool
	refuse.Store(true)
	var posts atomic.Int64
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		if refuse.Load() {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer backend.Close()
	setEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": backend.URL, "OTEL_METRIC_EXPORT_INTERVAL": "20"})

	tel, logs := setupAndCall(t)
	waitFor(t, "five refused batches", func() bool { return posts.Load() >= 5 })

	failing := linesWith(t, logs, "telemetry export failing")
	if len(failing) != 1 {
		t.Fatalf("want one failure line for %d refused batches, got %d: %s", posts.Load(), len(failing), logs.String())
	}
	l := failing[0]
	if l["level"] != "ERROR" || l["signal"] != "metrics" || l["exporter"] != "otlp http/protobuf" ||
		!strings.Contains(l["error"].(string), "404 Not Found") ||
		!strings.Contains(l["hint"].(string), "OTEL_METRICS_EXPORTER=none or prometheus") {
		t.Fatalf("failure line %v", l)
	}

	refuse.Store(false)
	waitFor(t, "the recovery line", func() bool { return len(linesWith(t, logs, "telemetry export recovered")) > 0 })
	before := posts.Load()
	waitFor(t, "more accepted batches", func() bool { return posts.Load() >= before+3 })
	if err := tel.Shutdown(t.Context()); err != nil {
		t.Fatalf("shutdown after recovery: %v", err)
	}
	if n := len(linesWith(t, logs, "telemetry export")); n != 2 {
		t.Fatalf("want 2 lines (failing, recovered), got %d: %s", n, logs.String())
	}
	if n := global.Load(); n != 0 {
		t.Fatalf("%d errors reached the global otel handler", n)
	}
}

// TestMetricsRefusedOverGRPCFailsShutdown: a gRPC backend without the
// metrics service answers Unimplemented; the failure is logged once and,
// still going on at the end, is Shutdown's error.
func TestMetricsRefusedOverGRPCFailsShutdown(t *testing.T) {
	global := countGlobalErrors(t)
	var calls atomic.Int64
	gs := grpc.NewServer(grpc.UnknownServiceHandler(func(any, grpc.ServerStream) error {
		calls.Add(1)
		return status.Error(codes.Unimplemented, "unknown service opentelemetry.proto.collector.metrics.v1.MetricsService")
	}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = gs.Serve(ln) }()
	defer gs.Stop()
	setEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + ln.Addr().String(), "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc",
		"OTEL_TRACES_EXPORTER": "none", "OTEL_METRIC_EXPORT_INTERVAL": "20"})

	tel, logs := setupAndCall(t)
	waitFor(t, "five refused batches", func() bool { return calls.Load() >= 5 })

	err = tel.Shutdown(t.Context())
	if status.Code(err) != codes.Unimplemented || !strings.Contains(err.Error(), "metrics over otlp grpc failing") {
		t.Fatalf("shutdown error %v, want the ongoing Unimplemented failure", err)
	}
	failing := linesWith(t, logs, "telemetry export")
	if len(failing) != 1 || failing[0]["signal"] != "metrics" || !strings.Contains(failing[0]["hint"].(string), "OTEL_METRICS_EXPORTER") {
		t.Fatalf("want one failure line with a hint for %d refused batches: %s", calls.Load(), logs.String())
	}
	if n := global.Load(); n != 0 {
		t.Fatalf("%d errors reached the global otel handler", n)
	}
}

// TestEndpointCredentialsStayOutOfLogs: the exporter's error text, logged
// and returned as is, names the endpoint without the user and password an
// endpoint URL may carry.
func TestEndpointCredentialsStayOutOfLogs(t *testing.T) {
	backend := httptest.NewServer(http.NotFoundHandler())
	defer backend.Close()
	endpoint := strings.Replace(backend.URL, "://", "://user:hunter2@", 1)
	setEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": endpoint, "OTEL_METRICS_EXPORTER": "none"})
	tel, logs := setupAndCall(t)
	err := tel.Shutdown(t.Context())
	if err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("shutdown error %v, want the 404", err)
	}
	if strings.Contains(err.Error(), "hunter2") || strings.Contains(logs.String(), "hunter2") {
		t.Fatalf("credentials leaked: %v\n%s", err, logs.String())
	}
	if !strings.Contains(logs.String(), "OTEL_TRACES_EXPORTER=none") {
		t.Fatalf("no hint in %s", logs.String())
	}
}
