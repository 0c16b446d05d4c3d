package wrap_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// The retrofit: one option on an existing server. A handler that returns a Go
// error now answers with an isError result instead of a JSON-RPC -32603.
func ExampleMiddleware() {
	s := server.NewMCPServer("weather", "1.0.0",
		server.WithToolHandlerMiddleware(mcpgo.Middleware(wrap.New())),
	)
	s.AddTool(mcp.NewTool("get_forecast"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errs.Newf(errs.NotFound, "no city named %q", "Atlantis")
	})
	resp := s.HandleMessage(context.Background(),
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast"}}`))
	res := resp.(mcp.JSONRPCResponse).Result.(*mcp.CallToolResult)
	fmt.Println(res.IsError, res.Content[0].(mcp.TextContent).Text)
	// Output: true no city named "Atlantis"
}

// A panic becomes a generic result with a call id; the value and stack go to
// the logger, not to the model.
func ExampleTool() {
	st := mcpgo.Tool(wrap.New(), mcp.NewTool("fragile"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic(errors.New("nil map write"))
	})
	res, err := st.Handler(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "fragile"}})
	info, _ := mcpgo.InfoOf(res)
	fmt.Println(err, res.IsError, info.Code, info.CallID != "")
	// Output: <nil> true internal true
}
