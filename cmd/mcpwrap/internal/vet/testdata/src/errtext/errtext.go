package errtext

import (
	"context"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func lookup(string) (string, error) { return "", errors.New("db down") }

func Register(s *server.MCPServer, g *gosdk.Server) {
	s.AddTool(mcp.NewTool("get"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		v, err := lookup("k")
		if err != nil {
			return mcp.NewToolResultText(err.Error()), nil // want `errtext: tool "get" puts an error's text into a successful result`
		}
		return mcp.NewToolResultText(v), nil
	})
	s.AddTool(mcp.NewTool("fmt"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, err := lookup("k"); err != nil {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(fmt.Sprintf("failed: %v", err))}}, nil // want `errtext: tool "fmt" puts`
		}
		return nil, nil
	})
	// Clean look-alikes: the error result constructors and IsError: true.
	s.AddTool(mcp.NewTool("clean"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, err := lookup("k"); err != nil {
			return mcp.NewToolResultError(err.Error()), nil
		}
		if _, err := lookup("j"); err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent(err.Error())}}, nil
		}
		return mcp.NewToolResultText("ok"), nil
	})
	s.AddTools(server.ServerTool{Tool: mcp.NewTool("helper"), Handler: viaHelper})

	gosdk.AddTool(g, &gosdk.Tool{Name: "sdk_get"}, func(ctx context.Context, req *gosdk.CallToolRequest, in struct{}) (*gosdk.CallToolResult, any, error) {
		if _, err := lookup("k"); err != nil {
			return &gosdk.CallToolResult{Content: []gosdk.Content{&gosdk.TextContent{Text: "lookup: " + err.Error()}}}, nil, nil // want `errtext: tool "sdk_get" puts .*set IsError: true`
		}
		if _, err := lookup("j"); err != nil {
			return &gosdk.CallToolResult{IsError: true, Content: []gosdk.Content{&gosdk.TextContent{Text: err.Error()}}}, nil, nil
		}
		return nil, nil, nil
	})
}

func viaHelper(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return render(lookup("k"))
}

func render(v string, err error) (*mcp.CallToolResult, error) {
	if err != nil {
		return mcp.NewToolResultText("error: " + err.Error()), nil // want `errtext: render \(called by tool "helper"\) puts`
	}
	return mcp.NewToolResultText(v), nil
}
