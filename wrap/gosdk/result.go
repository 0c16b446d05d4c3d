package gosdk

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk/internal/content"
)

// toolResult is a go-sdk tool result seen by the chain.
type toolResult = content.Tool

func resultOf(r *mcp.CallToolResult) call.Result {
	if r == nil {
		return nil
	}
	return toolResult{R: r}
}
