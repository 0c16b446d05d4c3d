package redislimit_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
	"github.com/mcpwrap/mcpwrap/wrap/limit/redislimit"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// A limit every replica of a server shares: limit.New with the Redis store
// counts each caller's calls in Redis, so two replicas allow two calls a
// minute between them, not two each. (This example needs a live Redis, so
// it has no Output line: go test compiles it but does not run it. The
// package's tests run the same against a real redis-server.)
func ExampleStore() {
	addr := os.Getenv("MCPWRAP_REDIS_ADDR") // e.g. 127.0.0.1:6379
	rdb := redis.NewClient(redislimit.ClientOptions(addr))
	defer rdb.Close()
	rate := limit.Rate{Limit: 2, Per: time.Minute}
	search := func(lim *limit.Limiter) func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcpgo.Tool(wrap.New(), mcp.NewTool("search"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("3 results"), nil
		}, wrap.WithLimit(lim)).Handler
	}
	one := search(limit.New(rate, redislimit.Store(rdb, redislimit.WithPrefix("example:"))))
	two := search(limit.New(rate, redislimit.Store(rdb, redislimit.WithPrefix("example:"))))

	var req mcp.CallToolRequest
	req.Params.Name = "search"
	req.Header = map[string][]string{"Authorization": {"Bearer example-token"}}
	for _, h := range []func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error){one, two, one} {
		res, _ := h(context.Background(), req)
		if info, ok := mcpgo.InfoOf(res); ok {
			fmt.Println(res.IsError, info.Code)
			continue
		}
		fmt.Println(res.IsError)
	}
	// With a Redis at MCPWRAP_REDIS_ADDR this prints
	//	false
	//	false
	//	true rate_limited
}
