package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// cachedSearch is a go-sdk server over streamable HTTP (with sessions) with
// w attached and a read-only tool "search" whose runs are counted, each
// taking delay; and a real client of it with a bearer credential.
func cachedSearch(t *testing.T, w *wrap.Wrapper, delay time.Duration, runs *atomic.Int64) (*mcp.Server, *mcp.ClientSession) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "cache", Version: "1.0.0"}, nil)
	gosdk.Attach(s, w)
	s.AddTool(&mcp.Tool{Name: "search", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := runs.Add(1)
			time.Sleep(delay)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint("run ", n)}}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	c := mcp.NewClient(&mcp.Implementation{Name: "cache-test", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{"t1", http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return s, cs
}

func search(t *testing.T, cs *mcp.ClientSession, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCacheRunsAHundredIdenticalCallsOnceOnGoSDK(t *testing.T) {
	var runs atomic.Int64
	_, cs := cachedSearch(t, wrap.New(wrap.WithCache(wrap.Cache{})), 200*time.Millisecond, &runs)
	adaptercases.CheckHundredCallsRunOnce(t, func() (string, bool) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"q": "rome"}})
		if err != nil {
			return err.Error(), false
		}
		return resultText(res), !res.IsError
	}, &runs)
}

func TestCacheHitsWhateverTheKeyOrderOnGoSDK(t *testing.T) {
	var runs atomic.Int64
	_, cs := cachedSearch(t, wrap.New(wrap.WithCache(wrap.Cache{})), 0, &runs)
	search(t, cs, `{"q":"rome","n":1}`)
	res := search(t, cs, `{"n":1.0,"q":"rome"}`)
	m, _ := res.Meta["mcpwrap/cache"].(map[string]any)
	if runs.Load() != 1 || m == nil {
		t.Fatalf("runs = %d, _meta %v; want one run and the cached answer's age", runs.Load(), res.Meta)
	}
}

func TestCacheForgetsWhenTheToolListChangesOnGoSDK(t *testing.T) {
	var runs atomic.Int64
	s, cs := cachedSearch(t, wrap.New(wrap.WithCache(wrap.Cache{})), 0, &runs)
	search(t, cs, `{"q":"x"}`)
	search(t, cs, `{"q":"x"}`)
	s.RemoveTools("nothing-to-remove") // no change: nothing is dropped
	s.AddTool(&mcp.Tool{Name: "other", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	deadline := time.Now().Add(5 * time.Second)
	for runs.Load() == 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // go-sdk notifies the sessions after a short delay
		search(t, cs, `{"q":"x"}`)
	}
	if runs.Load() != 2 {
		t.Fatalf("runs = %d after AddTool, want 2", runs.Load())
	}
}
