package suppress

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func Register(s *server.MCPServer) {
	s.AddTool(mcp.NewTool("t"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.Name == "a" {
			//mcpwrap:ignore masked the operator's log is the only reader of this one
			return nil, errors.New("a")
		}
		if req.Params.Name == "b" {
			return nil, errors.New("b") //mcpwrap:ignore masked,secret same line works too
		}
		if req.Params.Name == "c" {
			//mcpwrap:ignore masked
			return nil, errors.New("c") // want `masked: errors.New`
		}
		//mcpwrap:ignore errtext a reason, but for another check
		return nil, errors.New("d") // want `masked: errors.New`
	})
}
