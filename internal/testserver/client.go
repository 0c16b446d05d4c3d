package testserver

import (
	"context"
	"slices"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
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
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}
