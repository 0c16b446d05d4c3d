package redislimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
	"github.com/mcpwrap/mcpwrap/wrap/limit/redislimit"
	"github.com/mcpwrap/mcpwrap/wrap/limit/redislimit/internal/redistest"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// BenchmarkRedis compares, in one run, the bare handler, the chain without
// a limit, and the chain with the Redis limiter admitting every call (one
// round trip to a redis-server on loopback per call).
func BenchmarkRedis(b *testing.B) {
	addr := redistest.Addr(b)
	var req mcp.CallToolRequest
	req.Params.Name = "bench"
	req.Header = map[string][]string{"Authorization": {"Bearer bench"}}
	run := func(b *testing.B, h server.ToolHandlerFunc) {
		testserver.BenchHandler(context.Background(), b, req, h)
	}
	b.Run("bare", func(b *testing.B) { run(b, testserver.Bare) })
	b.Run("chain", func(b *testing.B) { run(b, mcpgo.Tool(wrap.New(), mcp.NewTool("bench"), testserver.Bare).Handler) })
	b.Run("chain_redis", func(b *testing.B) {
		lim := limit.New(limit.Rate{Limit: 1_000_000_000, Per: time.Second},
			redislimit.Store(redisClient(b, addr), redislimit.WithPrefix(prefix(b))))
		run(b, mcpgo.Tool(wrap.New(), mcp.NewTool("bench"), testserver.Bare, wrap.WithLimit(lim)).Handler)
	})
}
