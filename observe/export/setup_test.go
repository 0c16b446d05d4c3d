package export_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/observe/export"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// otelEnv is every variable Setup reads; each test sets all of them so the
// developer's own environment cannot leak in.
var otelEnv = []string{
	"OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
	"OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
	"OTEL_EXPORTER_PROMETHEUS_HOST", "OTEL_EXPORTER_PROMETHEUS_PORT", "OTEL_METRIC_EXPORT_INTERVAL",
	"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES",
}

func setEnv(t *testing.T, kv map[string]string) {
	t.Helper()
	for _, k := range otelEnv {
		t.Setenv(k, kv[k])
	}
}

// call sends one tools/call through an observed, wrapped server without a
// transport.
func call(t *testing.T, w *wrap.Wrapper, tool string) {
	t.Helper()
	s := server.NewMCPServer("svc", "1.0.0")
	mcpgo.Attach(s, w)
	s.AddTools(testserver.OutcomeTools()...)
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"city":"Rome"}}}`
	if s.HandleMessage(t.Context(), []byte(msg)) == nil {
		t.Fatal("no answer")
	}
}

func TestSetup(t *testing.T) {
	cases := []struct {
		name      string
		env       map[string]string
		exporting bool
		metrics   bool // a Prometheus endpoint is served
		wantErr   string
	}{
		{"nothing configured", nil, false, false, ""},
		{"disabled", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, false, false, ""},
		{"http endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1"}, true, false, ""},
		{"grpc endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, true, false, ""},
		{"traces off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"}, false, false, ""},
		{"prometheus", map[string]string{"OTEL_METRICS_EXPORTER": "prometheus", "OTEL_EXPORTER_PROMETHEUS_HOST": "127.0.0.1", "OTEL_EXPORTER_PROMETHEUS_PORT": "0"}, false, true, ""},
		{"prometheus and otlp", map[string]string{"OTEL_METRICS_EXPORTER": "prometheus, otlp", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://127.0.0.1:1",
			"OTEL_EXPORTER_PROMETHEUS_HOST": "127.0.0.1", "OTEL_EXPORTER_PROMETHEUS_PORT": "0"}, false, true, ""},
		{"unknown protocol", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, false, false, "http/json"},
		{"unknown trace exporter", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, false, false, "zipkin"},
		{"prometheus is for metrics", map[string]string{"OTEL_TRACES_EXPORTER": "prometheus"}, false, false, `"prometheus" is not supported`},
		{"unknown metrics exporter", map[string]string{"OTEL_METRICS_EXPORTER": "prometheus,console", "OTEL_EXPORTER_PROMETHEUS_PORT": "0"}, false, false, "console"},
		{"bad metrics protocol after prometheus", map[string]string{"OTEL_METRICS_EXPORTER": "prometheus,otlp", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/json",
			"OTEL_EXPORTER_PROMETHEUS_HOST": "127.0.0.1", "OTEL_EXPORTER_PROMETHEUS_PORT": "0"}, false, false, "http/json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			setEnv(t, tc.env)
			tel, err := export.Setup(t.Context(), export.Config{ServiceName: "svc"})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tel.Exporting != tc.exporting {
				t.Fatalf("Exporting = %v", tel.Exporting)
			}
			if (tel.MetricsURL != "") != tc.metrics {
				t.Fatalf("MetricsURL = %q", tel.MetricsURL)
			}
			if tc.exporting { // nothing to send: the endpoint is closed
				if err := tel.Shutdown(t.Context()); err != nil {
					t.Fatalf("shutdown: %v", err)
				}
				return
			}
			// Spans exist even when nothing is exported, so logs carry trace ids.
			var logs bytes.Buffer
			call(t, wrap.New(wrap.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))), wrap.WithTelemetry(tel.Options()...)), "invalid")
			var line map[string]any
			if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			if _, ok := line["trace_id"]; ok == (tc.name == "disabled") {
				t.Fatalf("trace_id presence wrong: %v", line)
			}
			if err := tel.Shutdown(t.Context()); err != nil && !tc.metrics {
				t.Fatalf("shutdown with nothing to export: %v", err)
			}
			if err := tel.Shutdown(t.Context()); err != nil {
				t.Fatalf("second shutdown: %v", err)
			}
		})
	}
}

// TestPrometheusEndpoint: with OTEL_METRICS_EXPORTER=prometheus, Setup
// serves the call duration on /metrics under Prometheus names, and Shutdown
// stops serving.
func TestPrometheusEndpoint(t *testing.T) {
	setEnv(t, map[string]string{"OTEL_METRICS_EXPORTER": "prometheus", "OTEL_EXPORTER_PROMETHEUS_HOST": "127.0.0.1", "OTEL_EXPORTER_PROMETHEUS_PORT": "0"})
	tel, err := export.Setup(t.Context(), export.Config{ServiceName: "svc"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(tel.MetricsURL, "http://127.0.0.1:") || !strings.HasSuffix(tel.MetricsURL, "/metrics") {
		t.Fatalf("MetricsURL = %q", tel.MetricsURL)
	}
	w := wrap.New(wrap.WithTelemetry(tel.Options()...))
	call(t, w, "ok")
	call(t, w, "invalid")
	call(t, w, "panics")

	body := get(t, tel.MetricsURL)
	for _, want := range []string{
		"# TYPE mcp_server_operation_duration_seconds histogram",
		`mcp_server_operation_duration_seconds_count{gen_ai_tool_name="ok",mcp_method_name="tools/call",`,
		`mcp_server_operation_duration_seconds_count{error_type="tool_error",gen_ai_tool_name="invalid",mcp_method_name="tools/call",`,
		`mcpwrap_tool_panics_total{gen_ai_tool_name="panics",`,
		`target_info{`, `service_name="svc"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
	if err := tel.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	if resp, err := http.Get(tel.MetricsURL); err == nil {
		_ = resp.Body.Close()
		t.Fatalf("/metrics still answers after Shutdown: %s", resp.Status)
	}
}

// TestPrometheusPortTaken: a port already in use is Setup's error, not a
// log line after start-up.
func TestPrometheusPortTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	setEnv(t, map[string]string{"OTEL_METRICS_EXPORTER": "prometheus", "OTEL_EXPORTER_PROMETHEUS_HOST": "127.0.0.1", "OTEL_EXPORTER_PROMETHEUS_PORT": port})
	if _, err := export.Setup(t.Context(), export.Config{}); err == nil || !strings.Contains(err.Error(), port) {
		t.Fatalf("err %v, want one naming port %s", err, port)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s, %v", url, resp.Status, err)
	}
	return string(b)
}
