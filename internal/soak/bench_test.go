package soak_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// BenchmarkEndToEndHTTP is tools/call throughput over streamable HTTP on
// loopback with real mcp-go clients (8 sessions, calls in parallel), in one
// run: a bare server, the same server with wrap.Middleware, and with
// wrap.Middleware observed (recording SDK, JSON log lines to io.Discard).
// Throughput ratio = bare ns/op ÷ wrapped ns/op; the goal is ≥ 95%.
func BenchmarkEndToEndHTTP(b *testing.B) {
	handler := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("city", "?") + ": 21°C"), nil
	}
	observed := func() []server.ServerOption {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		ob := obs.New(obs.WithTracerProvider(tp), obs.WithMeterProvider(mp),
			obs.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))
		return []server.ServerOption{attached(wrap.New(obstest.WithObserver(ob)))}
	}
	cases := []struct {
		name string
		opts func() []server.ServerOption
	}{
		{"bare", func() []server.ServerOption { return nil }},
		{"wrapped", func() []server.ServerOption {
			return []server.ServerOption{attached(wrap.New())}
		}},
		{"wrapped_observed", observed},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			s := server.NewMCPServer("bench", "1.0.0", tc.opts()...)
			s.AddTool(mcp.NewTool("forecast", mcp.WithString("city")), handler)
			url, stop, err := testserver.Listen(s)
			if err != nil {
				b.Fatal(err)
			}
			defer stop()
			hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
			defer hc.CloseIdleConnections()
			const sessions = 8
			pool := make(chan *client.Client, sessions)
			for range sessions {
				c := dial(b, url, hc)
				defer c.Close()
				pool <- c
			}
			b.ReportAllocs()
			b.SetParallelism(4) // 8 callers on the 2-core CI machine, one per session
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				c := <-pool
				defer func() { pool <- c }()
				var req mcp.CallToolRequest
				req.Params.Name = "forecast"
				req.Params.Arguments = map[string]any{"city": "Rome"}
				for pb.Next() {
					res, err := c.CallTool(context.Background(), req)
					if err != nil || res.IsError {
						b.Fatalf("call failed: %v %+v", err, res)
					}
				}
			})
		})
	}
}
