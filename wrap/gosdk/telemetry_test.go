package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

func TestTelemetryDump(t *testing.T) {
	w, tel := newWrapper(t)
	cs := connect(t, "http", newServer(w), true)
	ctx := context.Background()
	_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{}`),
		Meta: mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}})
	_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: json.RawMessage(`{}`)})
	_, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "typed_secret", Arguments: json.RawMessage(`{"user":"bob","password":"hunter2"}`)})
	fmt.Println(tel.logs.String())
	for _, s := range tel.spans.Ended() {
		fmt.Println(s.Name(), s.SpanKind(), s.Parent().TraceID(), s.Attributes())
	}
	_ = attribute.Key("")
	_ = trace.SpanKindServer
	_ = strings.Contains
}
