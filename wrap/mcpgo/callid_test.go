package mcpgo_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// cityArgs is the typed tool's input: a required city.
type cityArgs struct {
	City string `json:"city" validate:"required"`
}

// TestEveryErrorResultCarriesItsCallID: over streamable HTTP, with a real
// mcp-go client, every error result the chain builds — a plain error shown
// scrubbed, an errs error, a panic, a timeout, a validation failure, the
// loop guard's refusal, a rate-limit refusal, a success too large to send
// whole for its output schema — has
// structuredContent.error.callId, equal to the call_id of the call's log
// line, so that a user can hand the operator the id that finds it. A plain
// error shown to the model used to be answered with its text alone.
func TestEveryErrorResultCarriesItsCallID(t *testing.T) {
	var logs logbuf.Buffer
	lim := limit.New(limit.Rate{}, limit.WithTool("limited", limit.Rate{Limit: 1, Per: time.Hour}), limit.WithLogger(logs.Logger()))
	w := wrap.New(wrap.WithLogger(logs.Logger()), wrap.ForTool("slow", wrap.WithTimeout(50*time.Millisecond)),
		wrap.WithLoopGuard(wrap.LoopGuard{Failures: 1}), wrap.WithLimit(lim), wrap.ForTool("huge", wrap.WithResultLimit(1<<10)))
	s := server.NewMCPServer("ids", "1.0.0")
	tool := func(name string, h server.ToolHandlerFunc) { s.AddTool(mcp.NewTool(name), h) }
	tool("plain", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("dial tcp 10.0.0.7:5432: connect: connection refused (password=hunter2)")
	})
	tool("coded", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errs.New(errs.NotFound, "no note named x.md")
	})
	tool("panic", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { panic("kaboom") })
	tool("slow", func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	tool("loop", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errs.New(errs.NotFound, "no such order")
	})
	tool("limited", func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	s.AddTool(mcp.NewTool("huge", mcp.WithRawOutputSchema([]byte(`{"type":"object"}`))), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultStructured(map[string]any{"rows": strings.Repeat("x", 4<<10)}, "rows"), nil
	})
	s.AddTools(mcpgo.Typed(w, mcp.NewTool("typed"), func(_ context.Context, _ mcp.CallToolRequest, a cityArgs) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(a.City), nil
	}))
	mcpgo.Attach(s, w)

	url, stop, err := testserver.Listen(s)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	// A credential names the caller for the loop guard (mcp-go's client
	// speaks the stateless protocol: no session).
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer ids"}))
	if err != nil {
		t.Fatal(err)
	}
	cl := client.NewClient(tr)
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := cl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	call := func(name string) *mcp.CallToolResult {
		t.Helper()
		var req mcp.CallToolRequest
		req.Params.Name = name
		req.Params.Arguments = map[string]any{}
		res, err := cl.CallTool(ctx, req)
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
			info, ok := mcpgo.InfoOf(res)
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
