// Package main serves stdio with go-sdk.
package main

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type In struct{ Name string }

func greet(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
	fmt.Printf("greeting %s\n", in.Name) // want `stdout: tool "greet" writes to stdout \(fmt.Printf\)`
	return &mcp.CallToolResult{}, nil, nil
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "x"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "greet"}, greet)
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
}
