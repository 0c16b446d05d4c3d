package wrap_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// A tool whose handler hangs, with one slot: the first call times out and
// leaves its handler running; the next is refused at once, handler not run.
func ExampleWithBulkhead() {
	release := make(chan struct{})
	search := mcpgo.Tool(wrap.New(), mcp.NewTool("search"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-release
		return mcp.NewToolResultText("late"), nil
	}, wrap.WithTimeout(10*time.Millisecond), wrap.WithBulkhead(wrap.Bulkhead{PerTool: 1}))
	defer close(release)

	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "search"}}
	for range 2 {
		res, _ := search.Handler(context.Background(), req)
		info, _ := mcpgo.InfoOf(res)
		fmt.Println(info.Code, info.RetryAfterSeconds)
		fmt.Println(info.Message)
	}
	// Output:
	// timeout 0
	// tool "search" timed out after 10ms; the operation may still complete upstream; not retried automatically because tool "search" is not marked read-only or idempotent: the operation may have happened, check before calling it again
	// unavailable 1
	// tool "search" is busy: 1 of its calls are already running or have timed out without finishing; retry after 1s; the request did not reach the upstream, so nothing was done
}
