package wrap_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/benchmix"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

var benchReq = mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "bench"}}

// BenchmarkChain compares, in one run, a bare handler with the same handler
// behind the chain built once (the per-tool form), without and with a
// logger; wrap/mcpgo's BenchmarkMiddlewarePerCall has the middleware as
// mcp-go applies it (rebuilt per call).
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
	b.Run("bare", func(b *testing.B) { run(b, testserver.Bare) })
	b.Run("tool", func(b *testing.B) { run(b, mcpgo.Tool(wrap.New(), mcp.NewTool("bench"), testserver.Bare).Handler) })
	b.Run("tool_without_bulkhead", func(b *testing.B) {
		run(b, mcpgo.Tool(wrap.New(), mcp.NewTool("bench"), testserver.Bare, wrap.WithBulkhead(wrap.Bulkhead{PerTool: -1})).Handler)
	})
	b.Run("tool_json_log", func(b *testing.B) {
		run(b, mcpgo.Tool(wrap.New(), mcp.NewTool("bench"), testserver.Bare, wrap.WithLogger(discard)).Handler)
	})
	b.Run("tool_timeout", func(b *testing.B) {
		run(b, mcpgo.Tool(wrap.New(), mcp.NewTool("bench"), testserver.Bare, wrap.WithTimeout(5*time.Second)).Handler)
	})
	b.Run("tool_error_result", func(b *testing.B) {
		notFound := errs.New(errs.NotFound, "")
		h := mcpgo.Tool(wrap.New(), mcp.NewTool("bench"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, notFound
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
		{"wrap_middleware", []server.ServerOption{attached(wrap.New())}},
	}
	for _, sv := range servers {
		s := server.NewMCPServer("bench", "1.0.0", sv.opts...)
		s.AddTool(mcp.NewTool("bench"), testserver.Bare)
		b.Run(sv.name, func(b *testing.B) { testserver.BenchCall(b, s, msg) })
	}
}

// BenchmarkStructuredResult is a whole tools/call whose result carries
// 100 KB of structuredContent, bare, attached and attached with the answer
// cap off: the chain measures the result by walking it, so mcp-go's
// encoding is the only one.
func BenchmarkStructuredResult(b *testing.B) {
	rows := make([]any, 1000)
	for i := range rows {
		rows[i] = map[string]any{"id": float64(i), "name": strings.Repeat("x", 64), "ok": true}
	}
	res := mcp.NewToolResultStructured(map[string]any{"rows": rows}, "1000 rows")
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rows","arguments":{}}}`)
	for _, c := range []struct {
		name string
		w    *wrap.Wrapper
	}{{"bare", nil}, {"attached", wrap.New()}, {"attached_no_cap", wrap.New(wrap.WithResultLimit(-1))}} {
		s := server.NewMCPServer("bench", "1.0.0")
		if c.w != nil {
			mcpgo.Attach(s, c.w)
		}
		s.AddTool(mcp.NewTool("rows"), h)
		b.Run(c.name, func(b *testing.B) { testserver.BenchCall(b, s, msg) })
	}
}

// TestNoLoggerSuccessPathAllocatesNothing guards the zero-cost promise: with
// no logger and no timeout, a successful call allocates nothing beyond the
// handler itself.
func TestNoLoggerSuccessPathAllocatesNothing(t *testing.T) {
	h := mcpgo.Tool(wrap.New(), mcp.NewTool("bench"), testserver.Bare).Handler
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

// BenchmarkStdioRoundTrip measures a whole tools/call from mcp-go's stdio
// client to mcp-go's stdio server over OS pipes and back: a bare server
// against the same server retrofitted with the README's three lines (a JSON
// logger writing each call's line to a pipe, as a stdio server's stderr is
// under an MCP host, and a per-call timeout), each of the two options
// alone, and the three lines with the log lines buffered. The forms take
// turns call by call, so a busy machine slows them alike; it reports the
// median round trip of each (µs) and the overhead of the medians over bare
// (%).
func BenchmarkStdioRoundTrip(b *testing.B) {
	// stderr as an MCP host sees it: a pipe it reads.
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	drained := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, stderrR); close(drained) }()
	defer func() { _ = stderrW.Close(); <-drained; _ = stderrR.Close() }()
	logger := slog.New(slog.NewJSONHandler(stderrW, nil))
	// The same lines through observe's buffered logger (the README's stdio
	// form): the write leaves the call's path.
	buffered := obs.NewLogger(obs.WithLogOutput(stderrW), obs.WithLogFormat("json"), obs.WithLogBuffer())
	forms := []struct {
		name string
		opts []wrap.Option
	}{
		{"bare", nil},
		{"logger+timeout", []wrap.Option{wrap.WithLogger(logger), wrap.WithTimeout(5 * time.Second)}},
		{"logger", []wrap.Option{wrap.WithLogger(logger)}},
		{"timeout", []wrap.Option{wrap.WithTimeout(5 * time.Second)}},
		{"buffered-logger+timeout", []wrap.Option{wrap.WithLogger(buffered), wrap.WithTimeout(5 * time.Second)}},
	}
	readFile := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		path, err := req.RequireString("path")
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText("contents of " + path), nil
	}
	clients := make([]*client.Client, len(forms))
	for i, f := range forms {
		var opts []server.ServerOption
		if f.opts != nil {
			opts = append(opts, attached(wrap.New(f.opts...)))
		}
		s := server.NewMCPServer("files", "1.0.0", opts...)
		s.AddTool(mcp.NewTool("read_file", mcp.WithString("path")), readFile)
		clients[i] = testserver.StartStdio(b, s)
	}
	var req mcp.CallToolRequest
	req.Params.Name = "read_file"
	req.Params.Arguments = map[string]any{"path": "/etc/hosts"}
	ctx := context.Background()
	names := make([]string, len(forms))
	for i, f := range forms {
		names[i] = f.name
	}
	benchmix.Run(b, names, func(i int) error {
		res, err := clients[i].CallTool(ctx, req)
		if err == nil && res.IsError {
			err = fmt.Errorf("error result %+v", res.Content)
		}
		return err
	})
}
