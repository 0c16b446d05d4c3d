package gosdk_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// sseServer serves s over go-sdk's SSE transport on loopback.
func sseServer(t *testing.T, s *mcp.Server) string {
	t.Helper()
	srv := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

func sseClient(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "sse-" + token, Version: "0"}, nil)
	// Not a context with a deadline: the SSE stream lives as long as it.
	cs, err := c.Connect(context.Background(), &mcp.SSEClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestSSEClientIsNotTheProcessOwner: go-sdk's SSE transport gives a
// request no HTTP headers, which the adapter took for stdio: every SSE
// client was the process owner, granted Policy.Local, and all of them
// shared one cache identity. An SSE client is anonymous unless a verifier
// says who it is; the process owner stays stdio's.
func TestSSEClientIsNotTheProcessOwner(t *testing.T) {
	var runs atomic.Int64
	s := mcp.NewServer(&mcp.Implementation{Name: "ops", Version: "1.0.0"}, nil)
	gosdk.Attach(s, wrap.New(wrap.WithCache(wrap.Cache{TTL: time.Minute}),
		wrap.WithAuthorization(authz.Policy{Tools: map[string][]string{"drop_table": {"admin"}}, Public: []string{"whoami"}, Local: []string{"admin"}})))
	for _, name := range []string{"drop_table", "whoami"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				runs.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
			})
	}
	url := sseServer(t, s)
	alice, bob := sseClient(t, url, "alice"), sseClient(t, url, "bob")
	res, err := alice.CallTool(context.Background(), &mcp.CallToolParams{Name: "drop_table", Arguments: map[string]any{}})
	if err == nil && !res.IsError {
		t.Fatalf("an SSE client without a verified token ran drop_table with the process owner's scopes: %s", resultText(res))
	}
	if err != nil && !strings.Contains(err.Error(), "unknown tool") {
		t.Fatalf("drop_table over SSE: %v, want the unknown-tool answer", err)
	}
	a := callTool(t, alice, "whoami", map[string]any{})
	b := callTool(t, bob, "whoami", map[string]any{})
	if a.Meta["mcpwrap/cache"] != nil || b.Meta["mcpwrap/cache"] != nil || runs.Load() != 2 {
		t.Fatalf("SSE clients shared a kept answer: alice %v, bob %v, %d runs; want two runs and no cached answer", a.Meta, b.Meta, runs.Load())
	}
}
