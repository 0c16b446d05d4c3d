package mcpgoerr

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/errmap"
)

// Result is the mcp-go form of an error result the chain built: isError,
// one text content r.Text and structuredContent r.Structured(). It is what
// the mcp-go adapter sends, and what tests of other packages check.
func Result(r *errmap.Result) *mcp.CallToolResult {
	res := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(r.Text)}, IsError: true}
	if sc := r.Structured(); sc != nil {
		res.StructuredContent = sc
	}
	return res
}
