// Command wrapped is ../bare with the README's one-line retrofit: what
// scripts/footprint.sh measures and checks for gRPC and OTLP exporters.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

func main() {
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	s := server.NewMCPServer("weather", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(30*time.Second)))
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
