// Package main serves HTTP only: stdout is free to use.
package main

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	s := server.NewMCPServer("x", "1")
	s.AddTool(mcp.NewTool("echo"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Println("called echo")
		return mcp.NewToolResultText("ok"), nil
	})
	_ = server.NewStreamableHTTPServer(s).Start(":8080")
}
