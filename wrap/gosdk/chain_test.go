package gosdk_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// TestAnnotationsAllowRetries: a tool registered with AddTool or Tool
// carries its annotations into its chain, so an Unavailable failure of a
// read-only tool is retried, and one of an unannotated tool is not (its
// side effects may have happened).
func TestAnnotationsAllowRetries(t *testing.T) {
	checkRetriedWhenReadOnly(t, "memory", func(s *mcp.Server, w *wrap.Wrapper, tool *mcp.Tool, h mcp.ToolHandler) {
		gosdk.Tool(s, w, tool, h)
	})
}

// checkRetriedWhenReadOnly: with retries on, a read-only tool registered
// with register is retried until it succeeds, and an unannotated one is
// not retried, its result cautioning against a repeat; the client calls
// over transport.
func checkRetriedWhenReadOnly(t *testing.T, transport string, register func(*mcp.Server, *wrap.Wrapper, *mcp.Tool, mcp.ToolHandler)) {
	t.Helper()
	policy := wrap.RetryPolicy{MaxRetries: 2, Initial: time.Millisecond, Max: time.Millisecond}
	w, _ := newWrapper(t, wrap.WithRetry(policy))
	s := mcp.NewServer(&mcp.Implementation{Name: "retry", Version: "1"}, nil)
	var readOnly, plain atomic.Int32
	flaky := func(n *atomic.Int32) mcp.ToolHandler {
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if n.Add(1) < 3 {
				return nil, errs.New(errs.Unavailable, "upstream busy")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		}
	}
	obj := map[string]any{"type": "object"}
	register(s, w, &mcp.Tool{Name: "lookup", InputSchema: obj, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, flaky(&readOnly))
	register(s, w, &mcp.Tool{Name: "order", InputSchema: obj}, flaky(&plain))
	gosdk.Attach(s, w)
	cs := connect(t, transport, s, true)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lookup", Arguments: json.RawMessage(`{}`)})
	if err != nil || res.IsError || readOnly.Load() != 3 {
		t.Fatalf("read-only tool: %v %s after %d attempts", err, toolText(res), readOnly.Load())
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "order", Arguments: json.RawMessage(`{}`)})
	if info, _ := gosdk.InfoOf(res); err != nil || info.Code != "unavailable" || plain.Load() != 1 || !strings.Contains(toolText(res), caution) {
		t.Fatalf("unannotated tool: %v %s after %d attempts", err, toolText(res), plain.Load())
	}
}

// TestHeaderParentsTheSpan: over streamable HTTP, a traceparent header
// (go-sdk hands the headers to the middleware in req.Extra) parents the
// span when _meta has none.
func TestHeaderParentsTheSpan(t *testing.T) {
	w, tel := newWrapper(t)
	s := newServer(w)
	const traceID = "0af7651916cd43dd8448eb211c80319c"
	cs := connectWithHeaders(t, s, headerTransport{"traceparent": "00-" + traceID + "-b7ad6b7169203331-01"})
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	spans := tel.spans.Ended()
	if len(spans) != 1 || spans[0].Parent().TraceID().String() != traceID {
		t.Fatalf("spans %v, want one with parent trace %s", spans, traceID)
	}
}

// connectWithHeaders connects a client to s over streamable HTTP; every
// request it sends carries the headers h.
func connectWithHeaders(t *testing.T, s *mcp.Server, h headerTransport) *mcp.ClientSession {
	t.Helper()
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: h}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// headerTransport sets its headers on every request.
type headerTransport map[string]string

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h {
		r.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}
