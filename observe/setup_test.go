package observe_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
)

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestSetup(t *testing.T) {
	cases := []struct {
		name      string
		env       map[string]string
		exporting bool
		wantErr   string
	}{
		{"nothing configured", nil, false, ""},
		{"disabled", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, false, ""},
		{"http endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1"}, true, ""},
		{"grpc endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, true, ""},
		{"traces off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none"}, false, ""},
		{"unknown protocol", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, false, "http/json"},
		{"unknown exporter", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, false, "zipkin"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL",
				"OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"} {
				t.Setenv(k, tc.env[k])
			}
			tel, err := observe.Setup(t.Context(), observe.ServiceName("svc"))
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
			if tc.exporting { // nothing to send: the endpoint is closed
				if err := tel.Shutdown(t.Context()); err != nil {
					t.Fatalf("shutdown: %v", err)
				}
				return
			}
			// Spans exist even when nothing is exported, so logs carry trace ids.
			var logs bytes.Buffer
			o := observe.New(append(tel.Options(), observe.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))...)
			h := wrap.Tool(tools()[1].Tool, tools()[1].Handler, wrap.WithObserver(o)).Handler
			if _, err := h(t.Context(), reqFor("tool_error")); err != nil {
				t.Fatal(err)
			}
			var line map[string]any
			if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
				t.Fatal(err)
			}
			if _, ok := line["trace_id"]; ok == (tc.name == "disabled") {
				t.Fatalf("trace_id presence wrong: %v", line)
			}
			if err := tel.Shutdown(t.Context()); err != nil {
				t.Fatalf("shutdown with nothing to export: %v", err)
			}
			if err := tel.Shutdown(t.Context()); err != nil {
				t.Fatalf("second shutdown: %v", err)
			}
		})
	}
}

func TestNewLogger(t *testing.T) {
	var buf bytes.Buffer
	l := observe.NewLogger(observe.LogTo(&buf), observe.LogEnv(env(map[string]string{observe.EnvLogLevel: "warn"})))
	l.Info("hidden")
	l.Warn("shown", "k", 1)
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil || m["msg"] != "shown" {
		t.Fatalf("want one JSON line at warn, got %q (%v)", buf.String(), err)
	}
	buf.Reset()
	l = observe.NewLogger(observe.LogTo(&buf), observe.LogEnv(env(map[string]string{observe.EnvLogFormat: "text"})), observe.LogLevel(slog.LevelDebug))
	l.Debug("colourful", "k", 1)
	if json.Valid(buf.Bytes()) || !strings.Contains(buf.String(), "colourful") || !strings.Contains(buf.String(), "k=1") {
		t.Fatalf("want tint text, got %q", buf.String())
	}
}

// TestSessionIDOnStatefulSessions: with the 2025-11-25 handshake, HTTP
// sessions have an id, and it reaches the span and the log line.
func TestSessionIDOnStatefulSessions(t *testing.T) {
	x := newTel(t)
	s := server.NewMCPServer("w", "1", server.WithToolHandlerMiddleware(wrap.Middleware(wrap.WithObserver(x.obs))))
	s.AddTools(tools()...)
	conn := testserver.StartHTTP(t, s, client.WithProtocolVersion("2025-11-25"))
	if _, err := conn.Call(t.Context(), "ok", nil); err != nil {
		t.Fatal(err)
	}
	a := attrs(x.span(t, "tools/call ok"))
	if a["mcp.session.id"] == "" || a["mcp.protocol.version"] != "2025-11-25" {
		t.Fatalf("attributes %v", a)
	}
	if l := callLine(t, x.logs, "ok"); l["session_id"] != a["mcp.session.id"] {
		t.Fatalf("log %v", l)
	}
}
