package gosdk_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/rawrpc"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// TestGoSDKTaskLikeToolsKeepWorking: go-sdk v1.8.0 has no MCP tasks (its
// CallToolParams has no task member, and no tasks/* method). A server that
// runs long work its own way — a tool that starts it in the background,
// detached from the call's context, and a tool that reports on it — keeps
// working under the chain and its WithTimeout, which bounds the starting
// call only; and a tools/call carrying a task param is answered in place,
// as go-sdk alone answers it.
func TestGoSDKTaskLikeToolsKeepWorking(t *testing.T) {
	var mu sync.Mutex
	jobs := map[string]string{}
	s := mcp.NewServer(&mcp.Implementation{Name: "exports", Version: "1.0.0"}, nil)
	gosdk.Attach(s, wrap.New(wrap.WithTimeout(50*time.Millisecond)))
	s.AddTool(&mcp.Tool{Name: "start_export", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			jobs["job-1"] = "working"
			mu.Unlock()
			work := context.WithoutCancel(ctx) // the server's own choice: the job outlives the call
			go func() {
				select {
				case <-time.After(200 * time.Millisecond):
				case <-work.Done():
				}
				mu.Lock()
				jobs["job-1"] = "done"
				mu.Unlock()
			}()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "job-1"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "export_status", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			defer mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: jobs["job-1"]}}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(srv.Close)
	cs := connectAs(t, srv.URL, "", nil)
	call := func(name string) string {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		return resultText(res)
	}
	if got := call("start_export"); got != "job-1" {
		t.Fatalf("start_export answered %q", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for call("export_status") != "done" {
		if time.Now().After(deadline) {
			t.Fatal("the job never finished: the call's timeout reached the server's own background work")
		}
		time.Sleep(20 * time.Millisecond)
	}
	code, body := rawrpc.Post(t, srv.URL, "", []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"export_status","task":{"ttl":60000}}}`))
	if code != http.StatusOK || !strings.Contains(body, `"text":"done"`) || strings.Contains(body, `"taskId"`) {
		t.Fatalf("a task-augmented call got %d %s, want the tool's result in place", code, body)
	}
}
