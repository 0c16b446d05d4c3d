package limit_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// cpuTime is the process's CPU time (user and system) in nanoseconds: on a
// machine shared with other work, wall time per call mostly measures the
// waits for a core, CPU time what the call costs. Run with -cpu 1.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkAdmit compares, in one run, the chain without a limit and with
// the local limiter admitting every call (a session's bucket that never
// runs dry), keyed by session and by credential; the difference is what
// the limiter adds to an allowed call.
func BenchmarkAdmit(b *testing.B) {
	srv := server.NewMCPServer("bench", "1")
	ctx := srv.WithContext(context.Background(), session{"mcp-session-bench"})
	var req mcp.CallToolRequest
	req.Params.Name = "bench"
	high := limit.Rate{Limit: 1_000_000_000, Per: time.Second} // finite: the bucket math runs
	run := func(b *testing.B, ctx context.Context, req mcp.CallToolRequest, h server.ToolHandlerFunc) {
		cpu := cpuTime()
		testserver.BenchHandler(ctx, b, req, h)
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	}
	b.Run("bare", func(b *testing.B) { run(b, ctx, req, testserver.Bare) })
	b.Run("chain", func(b *testing.B) {
		run(b, ctx, req, mcpgo.Tool(wrap.New(), mcp.NewTool("bench"), testserver.Bare).Handler)
	})
	b.Run("chain_local_session", func(b *testing.B) {
		run(b, ctx, req, mcpgo.Tool(wrap.New(), mcp.NewTool("bench"), testserver.Bare, wrap.WithLimit(limit.New(high))).Handler)
	})
	b.Run("chain_local_credential", func(b *testing.B) {
		r := req
		r.Header = map[string][]string{"Authorization": {"Bearer 0123456789abcdef0123456789abcdef"}}
		run(b, context.Background(), r, mcpgo.Tool(wrap.New(), mcp.NewTool("bench"), testserver.Bare, wrap.WithLimit(limit.New(high))).Handler)
	})
}
