package masked

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
)

// A test's stub handler serves no client: not reported.
func stubHandler(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, errors.New("stub")
}
