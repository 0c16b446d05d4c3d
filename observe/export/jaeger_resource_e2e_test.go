package export_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/jaegertest"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/observe/export"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestJaegerResourcesAndPrompts exports a resources/read that succeeds, one
// that is not found, and a prompts/get to a real Jaeger, and reads their
// spans back: semconv names and attributes, error.type from the JSON-RPC
// code, and the client's span as parent through params._meta.
func TestJaegerResourcesAndPrompts(t *testing.T) {
	jaeger := jaegertest.At(t)
	query := jaeger.Query
	service := fmt.Sprintf("mcpwrap-e2e-resources-%08x", rand.Uint32())
	setEnv(t, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": jaeger.OTLPHTTP,
		"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_SERVICE_NAME": service, "OTEL_METRICS_EXPORTER": "none"})
	tel, err := export.Setup(t.Context(), export.Config{})
	if err != nil {
		t.Fatal(err)
	}
	w := wrap.New(wrap.WithTelemetry(tel.Options()...))
	s := server.NewMCPServer("notes", "1.0.0", attached(w))
	s.AddResource(mcp.NewResource("note://today", "today"),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "tides"}}, nil
		})
	s.AddResourceTemplate(mcp.NewResourceTemplate("note://archive/{day}", "archive"),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return nil, errs.New(errs.NotFound, "no note for that day")
		})
	s.AddPrompt(mcp.NewPrompt("summary"), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return mcp.NewGetPromptResult("summary", []mcp.PromptMessage{
			mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Summarise"))}), nil
	})
	conn := testserver.StartHTTP(t, s, client.WithMetaPropagator(mcpgo.MetaPropagator(w)), client.WithProtocolVersion("2025-11-25"))

	ctx, root := tel.TracerProvider.Tracer("e2e-client").Start(t.Context(), "agent turn", trace.WithSpanKind(trace.SpanKindClient))
	for _, uri := range []string{"note://today", "note://archive/1999-01-01"} {
		_, _ = conn.Client.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
	}
	if _, err := conn.Client.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "summary"}}); err != nil {
		t.Fatal(err)
	}
	root.End()
	// Shutdown flushes the spans; the read-back then waits for all four.
	if err := tel.Shutdown(context.WithoutCancel(ctx)); err != nil {
		t.Fatalf("flush to Jaeger: %v", err)
	}
	spans := jaegertest.WaitForSpans(t, query, service, root.SpanContext().TraceID().String(), 4)
	byURI := map[string]jaegerSpan{}
	var prompt *jaegerSpan
	for i, sp := range spans {
		switch sp.OperationName {
		case "resources/read":
			byURI[sp.Tag("mcp.resource.uri")] = sp
		case "prompts/get summary":
			prompt = &spans[i]
		}
	}
	for uri, errorType := range map[string]string{"note://today": "", "note://archive/1999-01-01": "-32002"} {
		sp, ok := byURI[uri]
		if !ok {
			t.Fatalf("no resources/read span for %s in Jaeger; got %d spans", uri, len(spans))
		}
		if got := sp.Tag("error.type"); got != errorType || sp.Tag("mcp.method.name") != "resources/read" || sp.Tag("span.kind") != "server" {
			t.Errorf("%s: error.type %q (want %q), method %q, kind %q", uri, got, errorType, sp.Tag("mcp.method.name"), sp.Tag("span.kind"))
		}
		if !childOf(sp, root.SpanContext().SpanID().String()) {
			t.Errorf("%s: not a child of the client's span: %+v", uri, sp.References)
		}
	}
	if prompt == nil || prompt.Tag("gen_ai.prompt.name") != "summary" || !childOf(*prompt, root.SpanContext().SpanID().String()) {
		t.Errorf("no prompts/get summary span under the client's span: %+v", prompt)
	}
}
