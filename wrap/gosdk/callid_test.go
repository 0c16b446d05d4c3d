package gosdk_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// TestEveryErrorResultCarriesItsCallID: over streamable HTTP, with a real
// go-sdk client, every error result the chain builds — a plain error shown
// scrubbed, an errs error, a panic, a timeout, a validation failure, the
// loop guard's refusal, a rate-limit refusal, a success too large to send
// whole for its output schema — has
// structuredContent.error.callId, equal to the call_id of the call's log
// line. A plain error shown to the model used to be answered with its text
// alone. The cases are adaptercases.CheckCallIDs, shared with wrap/mcpgo.
func TestEveryErrorResultCarriesItsCallID(t *testing.T) {
	var logs logbuf.Buffer
	w := wrap.New(adaptercases.CallIDOptions(logs.Logger())...)
	s := mcp.NewServer(&mcp.Implementation{Name: "ids", Version: "1.0.0"}, nil)
	obj := map[string]any{"type": "object"}
	for _, tool := range adaptercases.CallIDTools() {
		s.AddTool(&mcp.Tool{Name: tool.Name, InputSchema: obj}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := tool.Run(ctx); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	}
	s.AddTool(&mcp.Tool{Name: "huge", InputSchema: obj, OutputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		rows := strings.Repeat("x", 4<<10)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: rows}}, StructuredContent: map[string]any{"rows": rows}}, nil
	})
	gosdk.AddTool(s, w, &mcp.Tool{Name: "typed"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		City string `json:"city" validate:"required"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.City}}}, nil, nil
	})
	gosdk.Attach(s, w)

	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "ids-client", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	adaptercases.CheckCallIDs(t, &logs, func(t *testing.T, name string) (bool, errs.Info, bool) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(`{}`)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		info, ok := gosdk.InfoOf(res)
		return res.IsError, info, ok
	})
}
