package mcpgo

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo/internal/content"
)

// toolResult is an mcp-go tool result seen by the chain.
type toolResult = content.Tool

func resultOf(r *mcp.CallToolResult) call.Result {
	if r == nil {
		return nil
	}
	return toolResult{R: r}
}
