package mcpgo_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// An isError result holding a nil *mcp.TextContent made the chain's own
// reading of its text (for the log line) dereference nil, and the client
// got EOF; the adapters' copies of that code disagreed on nil contents
// (issue 37 item 8 shared them in internal/result). A nil content cannot be
// sent (mcp-go writes null, which no client reads): it is a result the
// server could not send, answered masked with a call id.
func TestNilTextContentDoesNotBreakTheChain(t *testing.T) {
	s := server.NewMCPServer("nil", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil)))))
	s.AddTool(mcp.NewTool("nil_text"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
			mcp.NewTextContent("upstream said no"), (*mcp.TextContent)(nil)}}, nil
	})
	res := testserver.StartHTTP(t, s).CallRaw(t, "nil_text", "")
	info, ok := mcpgo.InfoOf(res)
	if !ok || info.Code != "internal" || info.CallID == "" {
		t.Fatalf("want an internal error with a call id, got %+v (%+v)", res, info)
	}
}
