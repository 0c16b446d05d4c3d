package observe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// One failed call leaves a span named per the semantic conventions and one
// JSON log line with the outcome, the JSON-RPC request id and the arguments
// by name, type and size (their values only with wrap.WithArgumentValues),
// the secret one redacted.
func Example() {
	rec := tracetest.NewSpanRecorder()
	var logs bytes.Buffer
	s := server.NewMCPServer("weather", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))),
		wrap.WithTelemetry(observe.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))))))
	s.AddTool(mcp.NewTool("get_forecast"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errs.Newf(errs.NotFound, "no city named %q", "Atlantis")
	})

	ctx, cancel := context.WithCancel(context.Background()) // transports give each request its own
	defer cancel()
	s.HandleMessage(ctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call",
		"params":{"name":"get_forecast","arguments":{"city":"Atlantis","api_key":"k-123"}}}`))

	span := rec.Ended()[0]
	var line struct {
		Outcome   string          `json:"outcome"`
		RequestID string          `json:"request_id"`
		Arguments json.RawMessage `json:"arguments"`
	}
	_ = json.Unmarshal(logs.Bytes(), &line)
	fmt.Println(span.Name(), span.Status().Code)
	fmt.Println(line.Outcome, line.RequestID, string(line.Arguments))
	// Output:
	// tools/call get_forecast Error
	// not_found 7 {"api_key":"[REDACTED]","city":"<string, 8 bytes>"}
}
