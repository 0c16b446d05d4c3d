package stdoutlib // want package:"stdoutWrites"

// Register's handler writes to stdout; the package does not serve, so the
// write is reported where a program serves it over stdio (stdoutmain).

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func Register(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("lib"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Println("lib called")
		return mcp.NewToolResultText("ok"), nil
	})
}
