package wrap_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap"
)

// BenchmarkResourceRead compares one resources/read through mcp-go's whole
// dispatch, bare and with attached(w) (no telemetry, and with a timeout,
// which runs the handler on a pooled goroutine).
func BenchmarkResourceRead(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"note://today"}}`)
	handler := func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "tides"}}, nil
	}
	for _, c := range []struct {
		name string
		opts []server.ServerOption
	}{
		{"bare", nil},
		{"wrapped", []server.ServerOption{attached(wrap.New())}},
		{"wrapped+timeout", []server.ServerOption{attached(wrap.New(wrap.WithTimeout(1e9)))}},
	} {
		s := server.NewMCPServer("notes", "1.0.0", c.opts...)
		s.AddResource(mcp.NewResource("note://today", "today"), handler)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				if _, ok := s.HandleMessage(ctx, msg).(mcp.JSONRPCResponse); !ok {
					b.Fatal("not a result")
				}
			}
		})
	}
}
