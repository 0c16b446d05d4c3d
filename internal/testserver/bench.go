package testserver

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// BenchCall runs one JSON-RPC tools/call message through s.HandleMessage
// per iteration (mcp-go's whole dispatch, without a transport), reporting
// allocations, and fails on anything but a tool result without isError.
func BenchCall(b *testing.B, s *server.MCPServer, msg []byte) {
	b.Helper()
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		resp := s.HandleMessage(ctx, msg)
		r, ok := resp.(mcp.JSONRPCResponse)
		if !ok {
			b.Fatalf("response %#v", resp)
		}
		if res, ok := r.Result.(*mcp.CallToolResult); !ok || res.IsError {
			b.Fatalf("not a successful tool result: %#v", r.Result)
		}
	}
}

// okResult is Bare's answer, made once so that Bare allocates nothing.
var okResult = mcp.NewToolResultText("ok")

// Bare is the handler the benchmarks measure the chain against: it answers
// "ok" and does nothing else.
func Bare(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return okResult, nil
}

// BenchHandler calls h with ctx and req once per iteration, reporting
// allocations, and fails on an error or an isError result.
func BenchHandler(ctx context.Context, b *testing.B, req mcp.CallToolRequest, h server.ToolHandlerFunc) {
	b.Helper()
	b.ReportAllocs()
	for b.Loop() {
		res, err := h(ctx, req)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}
