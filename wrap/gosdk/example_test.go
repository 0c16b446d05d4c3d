package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// serve connects a go-sdk client to s over in-memory transports.
func serve(s *mcp.Server) *mcp.ClientSession {
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(context.Background(), st, nil); err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		panic(err)
	}
	return cs
}

var anyCallID = regexp.MustCompile(`[0-9a-f]{16}`)

// Attach wraps every tool, resource and prompt handler of a go-sdk server,
// those added before it too: a panic becomes an isError result with a call
// id, and the server keeps serving.
func ExampleAttach() {
	s := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "order", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			panic("nil map") // bare go-sdk: the process dies
		})
	gosdk.Attach(s, wrap.New())

	cs := serve(s)
	defer cs.Close()
	res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "order", Arguments: json.RawMessage(`{}`)})
	info, _ := gosdk.InfoOf(res)
	fmt.Println(res.IsError, info.Code)
	fmt.Println(anyCallID.ReplaceAllString(res.Content[0].(*mcp.TextContent).Text, "…"))
	// Output:
	// true internal
	// internal error in tool "order" (call id …); the details are in the server log
}

func ExampleAddTool() {
	type args struct {
		City string `json:"city" validate:"required"`
		Days int    `json:"days" validate:"required,min=1,max=14"`
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
	// Without Attach the tool runs the chain itself; with it, the
	// middleware does, once.
	gosdk.AddTool(s, wrap.New(), &mcp.Tool{Name: "forecast"},
		func(_ context.Context, _ *mcp.CallToolRequest, in args) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny in " + in.City}}}, nil, nil
		})
	cs := serve(s)
	defer cs.Close()
	res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "forecast", Arguments: json.RawMessage(`{"cty":"Rome","days":0}`)})
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// invalid arguments for tool "forecast": parameter "city" is required; unknown parameter "cty"; did you mean "city"?; parameter "days" must not be 0, got 0
}
