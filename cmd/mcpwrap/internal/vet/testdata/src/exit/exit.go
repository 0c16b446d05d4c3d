package exit

import (
	"context"
	"log"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func mustConfig() string {
	v := os.Getenv("X")
	if v == "" {
		log.Fatalf("X is not set") // want `exit: mustConfig \(called by tool "cfg"\) calls log.Fatalf, which ends the process`
	}
	return v
}

func Register(s *server.MCPServer, g *gosdk.Server) {
	s.AddTool(mcp.NewTool("cfg"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(mustConfig()), nil
	})
	g.AddTool(&gosdk.Tool{Name: "quit"}, func(ctx context.Context, req *gosdk.CallToolRequest) (*gosdk.CallToolResult, error) {
		os.Exit(1) // want `exit: tool "quit" calls os.Exit`
		return &gosdk.CallToolResult{}, nil
	})
	// Clean: log.Printf and log.Panicf (a panic that middleware recovers) are not exits.
	g.AddTool(&gosdk.Tool{Name: "log"}, func(ctx context.Context, req *gosdk.CallToolRequest) (*gosdk.CallToolResult, error) {
		log.Printf("called")
		return &gosdk.CallToolResult{}, nil
	})
	// Outside a handler, at start-up, log.Fatal is the right thing.
	if os.Getenv("Y") == "" {
		log.Fatal("Y is not set")
	}
}
