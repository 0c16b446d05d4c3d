package mcpgo_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// The retrofit: one line after the server is built. A handler that returns
// an errs error now answers with an isError result instead of a JSON-RPC
// -32603, and so does a tool added after Attach.
func ExampleAttach() {
	s := server.NewMCPServer("weather", "1.0.0")
	mcpgo.Attach(s, wrap.New())
	s.AddTool(mcp.NewTool("get_forecast"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errs.Newf(errs.NotFound, "no city named %q", "Atlantis")
	})
	resp := s.HandleMessage(context.Background(),
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast"}}`))
	res := resp.(mcp.JSONRPCResponse).Result.(*mcp.CallToolResult)
	info, _ := mcpgo.InfoOf(res)
	fmt.Println(res.IsError, info.Code, res.Content[0].(mcp.TextContent).Text)
	// Output: true not_found no city named "Atlantis"
}

// Typed binds a tool's arguments to a struct and checks its validate tags
// before the handler runs; the tool's input schema comes from the same tags.
// A call with wrong arguments gets one isError result naming every problem.
func ExampleTyped() {
	type forecastArgs struct {
		City string `json:"city" validate:"required"`
		Days int    `json:"days" validate:"omitempty,min=1,max=14"`
	}
	w := wrap.New()
	s := server.NewMCPServer("weather", "1.0.0")
	mcpgo.Attach(s, w)
	s.AddTools(mcpgo.Typed(w, mcp.NewTool("forecast", mcp.WithDescription("Weather forecast")),
		func(ctx context.Context, req mcp.CallToolRequest, args forecastArgs) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(fmt.Sprintf("sunny in %s for %d days", args.City, args.Days)), nil
		}))
	call := func(arguments string) {
		resp := s.HandleMessage(context.Background(),
			[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":`+arguments+`}}`))
		res := resp.(mcp.JSONRPCResponse).Result.(*mcp.CallToolResult)
		fmt.Println(res.IsError, res.Content[0].(mcp.TextContent).Text)
	}
	call(`{"city":"Paris","days":3}`)
	call(`{"cty":"Paris","days":30}`)
	// Output:
	// false sunny in Paris for 3 days
	// true invalid arguments for tool "forecast": parameter "city" is required; unknown parameter "cty"; did you mean "city"?; parameter "days" must be between 1 and 14, got 30
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

// A request body over the cap is answered before mcp-go reads it, and no
// handler runs.
func ExampleNewHTTPServer() {
	s := server.NewMCPServer("weather", "1.0.0")
	mcpgo.Attach(s, wrap.New())
	hs := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{MaxBodyBytes: 1 << 10})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go func() { _ = hs.Serve(ln) }()
	defer func() { _ = hs.Shutdown(context.Background()) }()

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"q":"` + strings.Repeat("a", 2<<10) + `"}}}`
	resp, err := http.Post("http://"+ln.Addr().String()+"/mcp", "application/json", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output: 413
}
