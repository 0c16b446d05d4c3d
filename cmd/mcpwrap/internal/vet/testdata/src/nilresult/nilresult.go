package nilresult

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type svc struct{}

func (svc) handle(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if req.Params.Name == "" {
		return nil, nil // want `nilresult: tool "method" returns nil, nil: mcp-go answers JSON-RPC -32603`
	}
	return mcp.NewToolResultText("ok"), nil
}

func Register(s *server.MCPServer, g *gosdk.Server) {
	var v svc
	s.AddTool(mcp.NewTool("method"), v.handle)
	s.AddPrompt(mcp.NewPrompt("p"), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, nil // want "nilresult: prompt \"p\" returns nil, nil: mcp-go sends \"result\": null.*`internal error in prompt \"p\" \\(call id …\\); the details are in the server log`"
	})
	// Clean: a resource handler's nil slice is an empty read, not a missing result.
	s.AddResource(mcp.NewResource("file:///a", "a"), func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return nil, nil
	})
	g.AddTool(&gosdk.Tool{Name: "raw"}, func(ctx context.Context, req *gosdk.CallToolRequest) (*gosdk.CallToolResult, error) {
		return nil, nil // want `nilresult: tool "raw" returns nil, nil: go-sdk sends "result": null`
	})
	// Clean: a typed go-sdk handler may return a nil result; the SDK fills it in.
	gosdk.AddTool(g, &gosdk.Tool{Name: "typed"}, func(ctx context.Context, req *gosdk.CallToolRequest, in struct{}) (*gosdk.CallToolResult, struct{}, error) {
		return nil, struct{}{}, nil
	})
	// Clean: a nil, nil inside a nested literal is not the handler's return.
	g.AddTool(&gosdk.Tool{Name: "nested"}, func(ctx context.Context, req *gosdk.CallToolRequest) (*gosdk.CallToolResult, error) {
		f := func() (*int, error) { return nil, nil }
		f()
		return &gosdk.CallToolResult{}, nil
	})
}
