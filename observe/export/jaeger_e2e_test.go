package export_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/internal/jaegertest"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/observe/export"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// EnvJaeger names the host of a running Jaeger (jaegertest.EnvHost).
const EnvJaeger = jaegertest.EnvHost

type jaegerSpan = jaegertest.Span

// TestJaegerEndToEnd exports the tour's kind of calls over OTLP (HTTP and
// gRPC, configured only through OTEL_* variables and Setup) to a real
// Jaeger and reads them back through its query API.
func TestJaegerEndToEnd(t *testing.T) {
	jaeger := jaegertest.At(t)
	query := jaeger.Query
	resp, err := http.Get(query + "/api/services")
	if err != nil {
		t.Fatalf("%s=%s but Jaeger's query API at %s does not answer: %v", EnvJaeger, jaeger.Host, query, err)
	}
	_ = resp.Body.Close()

	for _, proto := range []struct{ name, endpoint string }{
		{"http/protobuf", jaeger.OTLPHTTP},
		{"grpc", jaeger.OTLPGRPC},
	} {
		t.Run(proto.name, func(t *testing.T) {
			service := fmt.Sprintf("mcpwrap-e2e-%s-%08x", strings.ReplaceAll(proto.name, "/", "-"), rand.Uint32())
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", proto.endpoint)
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", proto.name)
			t.Setenv("OTEL_SERVICE_NAME", service)
			t.Setenv("OTEL_METRICS_EXPORTER", "none") // Jaeger stores traces only
			tel, err := export.Setup(t.Context(), export.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if !tel.Exporting {
				t.Fatal("Setup does not export with an endpoint set")
			}
			w := wrap.New(wrap.WithTelemetry(tel.Options()...))
			s := server.NewMCPServer("weather", "1.0.0")
			mcpgo.Attach(s, w)
			s.AddTools(testserver.OutcomeTools()...)
			conn := testserver.StartHTTP(t, s, client.WithMetaPropagator(mcpgo.MetaPropagator(w)))

			ctx, root := tel.TracerProvider.Tracer("e2e-client").Start(t.Context(), "agent turn", trace.WithSpanKind(trace.SpanKindClient))
			for _, tool := range []string{"ok", "invalid", "panics"} {
				if _, err := conn.Call(ctx, tool, map[string]any{"city": "Rome"}); err != nil {
					t.Fatal(err)
				}
			}
			root.End()
			sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := tel.Shutdown(sctx); err != nil {
				t.Fatalf("flush to Jaeger: %v", err)
			}

			spans := jaegertest.WaitForSpans(t, query, service, root.SpanContext().TraceID().String(), 5)
			byName := map[string]jaegerSpan{}
			for _, sp := range spans {
				byName[sp.OperationName] = sp
			}
			for _, c := range []struct {
				tool, errorType, status string
			}{
				{"ok", "", ""},
				{"invalid", "tool_error", "ERROR"},
				{"panics", "tool_error", "ERROR"},
			} {
				sp, ok := byName["tools/call "+c.tool]
				if !ok {
					t.Fatalf("no span %q in Jaeger; got %v", "tools/call "+c.tool, keys(byName))
				}
				for k, want := range map[string]string{
					"span.kind": "server", "mcp.method.name": "tools/call", "gen_ai.tool.name": c.tool,
					"gen_ai.operation.name": "execute_tool", "network.transport": "tcp",
					"error.type": c.errorType, "otel.status_code": c.status,
				} {
					if got := sp.Tag(k); got != want {
						t.Errorf("%s: tag %s = %q, want %q", sp.OperationName, k, got, want)
					}
				}
				if sp.Tag("jsonrpc.request.id") == "" {
					t.Errorf("%s: no jsonrpc.request.id", sp.OperationName)
				}
				if !childOf(sp, root.SpanContext().SpanID().String()) {
					t.Errorf("%s is not a child of the client's span %s: %+v", sp.OperationName, root.SpanContext().SpanID(), sp.References)
				}
			}
			if child, ok := byName["fetch forecast"]; !ok || !childOf(child, byName["tools/call ok"].SpanID) {
				t.Errorf("the handler's own span is not under tools/call ok: %+v", child)
			}
		})
	}

	// The recipe without OTEL_METRICS_EXPORTER=none: Jaeger refuses the
	// metrics, and the logger hears of it once, with what to do.
	for _, proto := range []struct{ name, endpoint string }{
		{"metrics refused/http/protobuf", jaeger.OTLPHTTP},
		{"metrics refused/grpc", jaeger.OTLPGRPC},
	} {
		t.Run(proto.name, func(t *testing.T) {
			setEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": proto.endpoint,
				"OTEL_EXPORTER_OTLP_PROTOCOL": strings.TrimPrefix(proto.name, "metrics refused/"), "OTEL_METRIC_EXPORT_INTERVAL": "50"})
			var logs logbuf.Buffer
			tel, err := export.Setup(t.Context(), export.Config{ServiceName: "mcpwrap-e2e-metrics", Logger: logs.Logger()})
			if err != nil {
				t.Fatal(err)
			}
			call(t, wrap.New(wrap.WithTelemetry(tel.Options()...)), "ok")
			waitFor(t, "the failure line", func() bool { return len(linesWith(t, &logs, "telemetry export failing")) > 0 })
			time.Sleep(300 * time.Millisecond) // more refused batches, which must not be logged
			err = tel.Shutdown(t.Context())
			if err == nil || !strings.Contains(err.Error(), "metrics over otlp") {
				t.Fatalf("shutdown error %v, want the refused metrics", err)
			}
			var lost int
			if _, serr := fmt.Sscanf(err.Error()[strings.Index(err.Error(), "failing, ")+len("failing, "):], "%d", &lost); serr != nil || lost < 2 {
				t.Fatalf("want several refused batches behind the one line, got %d (%v): %v", lost, serr, err)
			}
			lines := linesWith(t, &logs, "telemetry export")
			if len(lines) != 1 || lines[0]["signal"] != "metrics" || !strings.Contains(fmt.Sprint(lines[0]["hint"]), "OTEL_METRICS_EXPORTER=none or prometheus") {
				t.Fatalf("want one metrics failure line with a hint, got %s", logs.String())
			}
		})
	}
}

func keys(m map[string]jaegerSpan) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func childOf(s jaegerSpan, parent string) bool { return s.ChildOf(parent) }
