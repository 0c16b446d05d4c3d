// Command bare is a minimal stdio mcp-go server without mcpwrap: the
// baseline of scripts/footprint.sh. It differs from ../wrapped only by the
// README's one-line retrofit.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	s := server.NewMCPServer("weather", "1.0.0")
	s.AddTool(mcp.NewTool("get_forecast", mcp.WithString("city", mcp.Required())), forecast)
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func forecast(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	city, err := req.RequireString("city")
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText("sunny in " + city), nil
}
