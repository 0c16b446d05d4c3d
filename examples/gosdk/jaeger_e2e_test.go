package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/jaegertest"
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
	jaeger := jaegertest.At(t)
	service := fmt.Sprintf("mcpwrap-gosdk-e2e-%08x", rand.Uint32())
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", jaeger.OTLPHTTP)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_SERVICE_NAME", service)
	t.Setenv("OTEL_METRICS_EXPORTER", "none") // Jaeger stores traces only
	tel, err := export.Setup(t.Context(), export.Config{})
	if err != nil {
		t.Fatal(err)
	}
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
	gosdk.Attach(s, wrap.New(wrap.WithTelemetry(tel.Options()...)))
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

	spans := jaegertest.WaitForSpans(t, jaeger.Query, service, root.SpanContext().TraceID().String(), 4)
	byName := map[string]jaegertest.Span{}
	for _, sp := range spans {
		byName[sp.OperationName] = sp
	}
	for _, c := range []struct{ span, errorType string }{
		{"tools/call ok", ""}, {"tools/call missing", "tool_error"}, {"tools/call panics", "tool_error"},
	} {
		sp, ok := byName[c.span]
		if !ok {
			t.Fatalf("no span %q in %d spans", c.span, len(spans))
		}
		if sp.Tag("span.kind") != "server" || sp.Tag("gen_ai.tool.name") == "" || sp.Tag("error.type") != c.errorType {
			t.Errorf("%s: tags %+v", c.span, sp.Tags)
		}
		if !sp.ChildOf(root.SpanContext().SpanID().String()) {
			t.Errorf("%s: not a child of the client's span %s: %+v", c.span, root.SpanContext().SpanID(), sp.References)
		}
	}
}
