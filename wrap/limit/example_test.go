package limit_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// Two calls per minute per key for every tool: the third call of the same
// caller is refused with a result the model can act on.
func Example() {
	lim := limit.New(limit.Rate{Limit: 2, Per: time.Minute})
	tool := mcpgo.Tool(wrap.New(), mcp.NewTool("search"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("3 results"), nil
	}, wrap.WithLimit(lim))

	var req mcp.CallToolRequest
	req.Params.Name = "search"
	req.Header = map[string][]string{"Authorization": {"Bearer example-token"}}
	for range 3 {
		res, _ := tool.Handler(context.Background(), req)
		if info, ok := mcpgo.InfoOf(res); ok {
			fmt.Println(info.Code, info.RetryAfterSeconds)
			fmt.Println(res.Content[0].(mcp.TextContent).Text)
			continue
		}
		fmt.Println(res.Content[0].(mcp.TextContent).Text)
	}
	// Output:
	// 3 results
	// 3 results
	// rate_limited 30
	// tool "search" allows 2 calls per minute per credential; retry after 30s
}
