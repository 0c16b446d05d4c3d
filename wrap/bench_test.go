package wrap_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
)

var benchResult = mcp.NewToolResultText("ok")

func bare(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return benchResult, nil
}

var benchReq = mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "bench"}}

// BenchmarkChain compares, in one run, a bare handler with the same handler
// behind the chain built once (the per-tool form) and behind the middleware
// as mcp-go applies it (rebuilt per call), without and with a logger.
func BenchmarkChain(b *testing.B) {
	discard := slog.New(slog.NewJSONHandler(io.Discard, nil))
	run := func(b *testing.B, h server.ToolHandlerFunc) {
		b.ReportAllocs()
		ctx := context.Background()
		for b.Loop() {
			if _, err := h(ctx, benchReq); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("bare", func(b *testing.B) { run(b, bare) })
	b.Run("tool", func(b *testing.B) { run(b, wrap.Tool(mcp.NewTool("bench"), bare).Handler) })
	b.Run("tool_without_bulkhead", func(b *testing.B) {
		run(b, wrap.Tool(mcp.NewTool("bench"), bare, wrap.WithBulkhead(wrap.Bulkhead{PerTool: -1})).Handler)
	})
	b.Run("middleware_per_call_build", func(b *testing.B) {
		mw := wrap.Middleware()
		run(b, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mw(bare)(ctx, req)
		})
	})
	b.Run("tool_json_log", func(b *testing.B) {
		run(b, wrap.Tool(mcp.NewTool("bench"), bare, wrap.WithLogger(discard)).Handler)
	})
	b.Run("tool_error_result", func(b *testing.B) {
		h := wrap.Tool(mcp.NewTool("bench"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errs.ErrNotFound
		}).Handler
		run(b, h)
	})
}

// BenchmarkDispatch measures a whole tools/call through mcp-go's
// HandleMessage (parsing, lookup, middleware, encoding) on a bare server,
// with mcp-go's WithRecovery, and with wrap.Middleware, in one run.
func BenchmarkDispatch(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bench","arguments":{}}}`)
	servers := []struct {
		name string
		opts []server.ServerOption
	}{
		{"bare", nil},
		{"mcpgo_recovery", []server.ServerOption{server.WithRecovery()}},
		{"wrap_middleware", []server.ServerOption{server.WithToolHandlerMiddleware(wrap.Middleware())}},
	}
	for _, sv := range servers {
		s := server.NewMCPServer("bench", "1.0.0", sv.opts...)
		s.AddTool(mcp.NewTool("bench"), bare)
		b.Run(sv.name, func(b *testing.B) { testserver.BenchCall(b, s, msg) })
	}
}

// TestNoLoggerSuccessPathAllocatesNothing guards the zero-cost promise: with
// no logger and no timeout, a successful call allocates nothing beyond the
// handler itself.
func TestNoLoggerSuccessPathAllocatesNothing(t *testing.T) {
	h := wrap.Tool(mcp.NewTool("bench"), bare).Handler
	ctx := context.Background()
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := h(ctx, benchReq); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("success path allocates %.1f times per call, want 0", allocs)
	}
}
