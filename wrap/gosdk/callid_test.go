package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
)

// TestEveryErrorResultCarriesItsCallID: over streamable HTTP, with a real
// go-sdk client, every error result the chain builds — a plain error shown
// scrubbed, an errs error, a panic, a timeout, a validation failure, the
// loop guard's refusal, a rate-limit refusal, a success too large to send
// whole for its output schema — has
// structuredContent.error.callId, equal to the call_id of the call's log
// line. A plain error shown to the model used to be answered with its text
// alone.
func TestEveryErrorResultCarriesItsCallID(t *testing.T) {
	var logs logbuf.Buffer
	lim := limit.New(limit.Rate{}, limit.WithTool("limited", limit.Rate{Limit: 1, Per: time.Hour}), limit.WithLogger(logs.Logger()))
	w := wrap.New(wrap.WithLogger(logs.Logger()), wrap.ForTool("slow", wrap.WithTimeout(50*time.Millisecond)),
		wrap.WithLoopGuard(wrap.LoopGuard{Failures: 1}), wrap.WithLimit(lim), wrap.ForTool("huge", wrap.WithResultLimit(1<<10)))
	s := mcp.NewServer(&mcp.Implementation{Name: "ids", Version: "1.0.0"}, nil)
	obj := map[string]any{"type": "object"}
	tool := func(name string, h mcp.ToolHandler) { s.AddTool(&mcp.Tool{Name: name, InputSchema: obj}, h) }
	tool("plain", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("dial tcp 10.0.0.7:5432: connect: connection refused (password=hunter2)")
	})
	tool("coded", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errs.New(errs.NotFound, "no note named x.md")
	})
	tool("panic", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("kaboom") })
	tool("slow", func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	tool("loop", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errs.New(errs.NotFound, "no such order")
	})
	tool("limited", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
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
	call := func(name string) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(`{}`)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	call("loop")    // the failure the guard remembers
	call("limited") // the one call the limit allows
	lines := func(tool string) []map[string]any {
		ls, err := logs.Find("tool", tool)
		if err != nil {
			t.Fatal(err)
		}
		var calls []map[string]any // the call's line, not its events
		for _, l := range ls {
			if _, ok := l["outcome"]; ok {
				calls = append(calls, l)
			}
		}
		return calls
	}
	for _, tc := range []struct{ name, tool, code string }{
		{"plain error shown", "plain", "internal"},
		{"errs error", "coded", "not_found"},
		{"panic", "panic", "internal"},
		{"timeout", "slow", "timeout"},
		{"validation failure", "typed", "invalid_argument"},
		{"loop guard refusal", "loop", ""},
		{"rate-limit refusal", "limited", "rate_limited"},
		{"structured result over the limit", "huge", "result_too_large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(lines(tc.tool))
			res := call(tc.tool)
			info, ok := gosdk.InfoOf(res)
			if !res.IsError || !ok {
				t.Fatalf("result %+v: no structuredContent.error", res)
			}
			if tc.code != "" && info.Code != tc.code {
				t.Errorf("code %q, want %q", info.Code, tc.code)
			}
			ls := lines(tc.tool)
			if len(ls) != before+1 {
				t.Fatalf("%d log lines for the call, want 1: %v", len(ls)-before, ls[before:])
			}
			id, _ := ls[len(ls)-1]["call_id"].(string)
			if info.CallID == "" || info.CallID != id {
				t.Errorf("structuredContent.error.callId %q, log line's call_id %q", info.CallID, id)
			}
			if tc.tool == "plain" && (strings.Contains(info.Message, "hunter2") || strings.Contains(info.Message, "10.0.0.7")) {
				t.Errorf("a secret in the message: %q", info.Message)
			}
		})
	}
}
