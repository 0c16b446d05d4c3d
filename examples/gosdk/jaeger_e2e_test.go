package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/observe/export"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// TestGoSDKSpansReachJaeger: a go-sdk server with gosdk.Attach, exporting
// through observe/export (OTEL_* variables only) to the real Jaeger .ci/run
// starts: a success, an error and a panic are three SERVER spans named per
// the semantic conventions, children of the client's span sent in
// params._meta, the failures with error.type.
func TestGoSDKSpansReachJaeger(t *testing.T) {
	host := os.Getenv("MCPWRAP_JAEGER_HOST")
	if host == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI is set but MCPWRAP_JAEGER_HOST is not: bash .ci/run starts Jaeger and sets it")
		}
		t.Skip("MCPWRAP_JAEGER_HOST is not set; bash .ci/run starts Jaeger and sets it")
	}
	port := func(env, def string) string {
		if p := os.Getenv(env); p != "" {
			return p
		}
		return def
	}
	query := "http://" + net.JoinHostPort(host, port("MCPWRAP_JAEGER_QUERY_PORT", "16686"))
	service := fmt.Sprintf("mcpwrap-gosdk-e2e-%08x", rand.Uint32())
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+net.JoinHostPort(host, port("MCPWRAP_JAEGER_OTLP_HTTP_PORT", "4318")))
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_SERVICE_NAME", service)
	t.Setenv("OTEL_METRICS_EXPORTER", "none") // Jaeger stores traces only
	tel, err := export.Setup(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	o := observe.New(tel.Options()...)

	s := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	add := func(name string, h mcp.ToolHandler) {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, h)
	}
	add("ok", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}}, nil
	})
	add("missing", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errs.New(errs.NotFound, "no city named Atlantis")
	})
	add("panics", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var m map[string]int
		m["x"]++
		return nil, nil //mcpwrap:ignore nilresult unreachable: the line above panics
	})
	gosdk.Attach(s, wrap.New(wrap.WithObserver(o)))
	ct, st := mcp.NewInMemoryTransports()
	if _, err := s.Connect(t.Context(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	ctx, root := tel.TracerProvider.Tracer("e2e-client").Start(t.Context(), "agent turn", trace.WithSpanKind(trace.SpanKindClient))
	for _, name := range []string{"ok", "missing", "panics"} {
		carrier := propagation.MapCarrier{}
		propagation.TraceContext{}.Inject(ctx, carrier)
		m := mcp.Meta{}
		for k, v := range carrier {
			m[k] = v
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Meta: m, Name: name, Arguments: json.RawMessage(`{}`)}); err != nil {
			t.Fatal(err)
		}
	}
	root.End()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tel.Shutdown(sctx); err != nil {
		t.Fatalf("flush to Jaeger: %v", err)
	}

	spans := jaegerSpans(t, query, service, root.SpanContext().TraceID().String(), 4)
	byName := map[string]map[string]any{}
	parents := map[string]string{}
	for _, sp := range spans {
		tags := map[string]any{}
		for _, tg := range sp.Tags {
			tags[tg.Key] = tg.Value
		}
		byName[sp.OperationName] = tags
		for _, r := range sp.References {
			if r.RefType == "CHILD_OF" {
				parents[sp.OperationName] = r.SpanID
			}
		}
	}
	for _, c := range []struct{ span, errorType string }{
		{"tools/call ok", ""}, {"tools/call missing", "tool_error"}, {"tools/call panics", "tool_error"},
	} {
		tags, ok := byName[c.span]
		if !ok {
			t.Fatalf("no span %q in %v", c.span, byName)
		}
		if tags["span.kind"] != "server" || tags["gen_ai.tool.name"] == nil || fmt.Sprint(tags["error.type"]) != c.errorType && c.errorType != "" {
			t.Errorf("%s: tags %v", c.span, tags)
		}
		if parents[c.span] != root.SpanContext().SpanID().String() {
			t.Errorf("%s: parent %s, want the client's span %s", c.span, parents[c.span], root.SpanContext().SpanID())
		}
	}
}

type jaegerSpan struct {
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
}

// jaegerSpans polls Jaeger's query API until the trace has at least n spans.
func jaegerSpans(t *testing.T, query, service, traceID string, n int) []jaegerSpan {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	last := ""
	for time.Now().Before(deadline) {
		resp, err := http.Get(query + "/api/traces?service=" + url.QueryEscape(service) + "&lookback=1h&limit=20")
		if err == nil {
			var body struct {
				Data []struct {
					TraceID string       `json:"traceID"`
					Spans   []jaegerSpan `json:"spans"`
				} `json:"data"`
			}
			err = json.NewDecoder(resp.Body).Decode(&body)
			_ = resp.Body.Close()
			for _, tr := range body.Data {
				if strings.TrimLeft(tr.TraceID, "0") == strings.TrimLeft(traceID, "0") && len(tr.Spans) >= n {
					return tr.Spans
				}
			}
			last = fmt.Sprintf("%d traces", len(body.Data))
		}
		if err != nil {
			last = err.Error()
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Fatalf("trace %s of service %s never reached Jaeger (%s)", traceID, service, last)
	return nil
}
