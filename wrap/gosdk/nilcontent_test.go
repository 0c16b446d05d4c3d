package gosdk_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// An isError result holding a nil *mcp.TextContent made the chain's sizing
// of it dereference nil; mcp-go's copy of that code failed elsewhere on the
// same result (issue 37 item 8 shared them in internal/result). A nil
// content cannot be sent: it is answered masked with a call id.
func TestNilTextContentDoesNotBreakTheChain(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "nil", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "nil_text", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
				&mcp.TextContent{Text: "upstream said no"}, (*mcp.TextContent)(nil)}}, nil
		})
	gosdk.Attach(s, wrap.New(wrap.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil)))))
	res, err := pipeSession(t, s).CallTool(t.Context(), &mcp.CallToolParams{Name: "nil_text"})
	if err != nil {
		t.Fatal(err)
	}
	info, ok := gosdk.InfoOf(res)
	if !ok || info.Code != "internal" || info.CallID == "" {
		t.Fatalf("want an internal error with a call id, got %+v (%+v)", res, info)
	}
}
