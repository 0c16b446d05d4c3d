package wrap_test

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
)

const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"

// TestResourceAndPromptSpans checks the spans of resources/read and
// prompts/get against the MCP semantic conventions: names, the URI with
// its password redacted, the prompt name, a URI no handler matches, error.type from the JSON-RPC
// code, the client's trace from params._meta as parent, and the duration
// metric by method.
func TestResourceAndPromptSpans(t *testing.T) {
	rec := obstest.Record(t)
	spans, reader, logs := rec.Spans, rec.Reader, rec.Logs
	w := wrap.New(rec.Option(), wrap.WithTimeout(time.Second))
	s := notesServer(t, attached(w))
	s.AddResource(mcp.NewResource("db://admin:hunter2@db.internal/notes", "db"),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "db://db.internal/notes", Text: "rows"}}, nil
		})
	conn := testserver.StartHTTP(t, s, client.WithProtocolVersion("2025-11-25"))
	meta := &mcp.Meta{AdditionalFields: map[string]any{"traceparent": "00-" + traceID + "-00f067aa0ba902b7-01"}}
	ctx := t.Context()
	for _, uri := range []string{"db://admin:hunter2@db.internal/notes", "note://missing", "nowhere://at-all"} {
		_, _ = conn.Client.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri, Meta: meta}})
	}
	_, _ = conn.Client.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "panic", Meta: meta}})

	ended := spans.Ended()
	if len(ended) != 4 {
		t.Fatalf("%d spans, want 4", len(ended))
	}
	for i, want := range []struct {
		name      string
		attr      attribute.KeyValue
		errorType string
	}{
		{"resources/read", attribute.String("mcp.resource.uri", "db://admin:[REDACTED]@db.internal/notes"), ""},
		{"resources/read", attribute.String("mcp.resource.uri", "note://missing"), "-32002"},
		// No handler: mcp-go answers before the chain; the hook records it.
		{"resources/read", attribute.String("mcp.resource.uri", "nowhere://at-all"), "-32002"},
		{"prompts/get panic", attribute.String("gen_ai.prompt.name", "panic"), "-32603"},
	} {
		sp := ended[i]
		attrs := map[attribute.Key]attribute.Value{}
		for _, a := range sp.Attributes() {
			attrs[a.Key] = a.Value
		}
		if sp.Name() != want.name || attrs[want.attr.Key] != want.attr.Value {
			t.Errorf("span %d: %q %s=%q, want %q %q", i, sp.Name(), want.attr.Key, attrs[want.attr.Key].AsString(), want.name, want.attr.Value.AsString())
		}
		if sp.Parent().TraceID().String() != traceID {
			t.Errorf("span %q is not a child of the client's trace: %v", sp.Name(), sp.Parent().TraceID())
		}
		if got := attrs["error.type"].AsString(); got != want.errorType {
			t.Errorf("span %q: error.type %q, want %q", sp.Name(), got, want.errorType)
		}
		if (want.errorType != "") != (sp.Status().Code == codes.Error) {
			t.Errorf("span %q: status %v", sp.Name(), sp.Status())
		}
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	methods := map[string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == "mcp.server.operation.duration" {
				for _, dp := range h.DataPoints {
					v, _ := dp.Attributes.Value("mcp.method.name")
					methods[v.AsString()] += dp.Count
				}
			}
		}
	}
	if methods["resources/read"] != 3 || methods["prompts/get"] != 1 {
		t.Errorf("duration points by method: %v", methods)
	}
	if lines, _ := logs.Find("resource", "db://admin:[REDACTED]@db.internal/notes"); len(lines) != 1 {
		t.Errorf("the log line does not name the redacted URI:\n%s", logs.String())
	}
}
