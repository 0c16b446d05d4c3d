package testserver

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
)

// ConnectAs is Connect with the bearer token's Authorization header (none
// when token is "").
func ConnectAs(tb testing.TB, url, token string, opts ...client.ClientOption) *client.Client {
	tb.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return Connect(tb, url, h, opts...)
}

// ToolNames lists cl's tools (one page) and returns their names, sorted.
func ToolNames(tb testing.TB, cl *client.Client) []string {
	tb.Helper()
	res, err := cl.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		tb.Fatal(err)
	}
	return adaptercases.SortedNames(res.Tools, func(tl mcp.Tool) string { return tl.Name })
}
