package gosdk_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// TestClientMistakesAreWarnings: an unknown tool, prompt
// or resource, and a handler's own -32602, are the client's mistakes. go-sdk
// answers them itself (-32602); the log line must say WARN with a
// client-side code, not ERROR internal. It also fails when a go-sdk upgrade
// rewords its "unknown tool/prompt" or "Resource not found" answers.
func TestClientMistakesAreWarnings(t *testing.T) {
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			w, tel := newWrapper(t)
			s := mcp.NewServer(&mcp.Implementation{Name: "mistakes", Version: "1.0.0"}, nil)
			s.AddTool(&mcp.Tool{Name: "picky", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the page token is stale"}
				})
			gosdk.Attach(s, w)
			cs := sessionOver(t, tr, s)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			adaptercases.CheckClientMistakes(t, tel.logs, wellFormed, []adaptercases.Mistake{
				{Key: "tool", Name: "nope", Code: "not_found", Call: func() error { _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope"}); return err }},
				{Key: "prompt", Name: "nope", Code: "not_found", Call: func() error { _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "nope"}); return err }},
				{Key: "resource", Name: "res://nope", Code: "not_found", Call: func() error {
					_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "res://nope"})
					return err
				}},
				{Key: "tool", Name: "picky", Code: "invalid_argument", Call: func() error { _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "picky"}); return err }},
			})
		})
	}
}

// TestServerFaultsStayErrors: a protocol answer that is not the client's
// mistake (a handler's own -32603 or custom code) is still logged ERROR.
func TestServerFaultsStayErrors(t *testing.T) {
	w, tel := newWrapper(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "faults", Version: "1.0.0"}, nil)
	for _, code := range []int64{jsonrpc.CodeInternalError, -32042} {
		s.AddTool(&mcp.Tool{Name: fmt.Sprint("rpc", -code), InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, &jsonrpc.Error{Code: code, Message: "the backend is being migrated"}
			})
	}
	gosdk.Attach(s, w)
	cs := connect(t, "memory", s, true)
	for _, name := range []string{"rpc32603", "rpc32042"} {
		_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
		lines, err := tel.logs.Find("tool", name)
		if err != nil || len(lines) != 1 {
			t.Fatalf("%s: %d log lines (%v)", name, len(lines), err)
		}
		if lines[0]["level"] != "ERROR" || lines[0]["code"] != "internal" {
			t.Errorf("%s: logged %v %v, want ERROR internal", name, lines[0]["level"], lines[0]["code"])
		}
	}
}
