package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// caution is the advice a result gives when the tool may have acted.
const caution = "not retried automatically"

// TestPlainAddToolAdviceFollowsAnnotations: a tool registered with plain
// (*mcp.Server).AddTool or mcp.AddTool keeps its annotations in the server
// only, and the middleware sees the call's name; a read-only one that timed
// out was answered "not retried automatically because tool … is not marked
// read-only or idempotent", sideEffects "possible". The advice now comes
// from the server's tool list: no caution for a read-only or idempotent
// tool, the caution for a destructive or unannotated one, over streamable
// HTTP on one page and on pages of one tool.
func TestPlainAddToolAdviceFollowsAnnotations(t *testing.T) {
	for _, pageSize := range []int{0, 1} {
		w, _ := newWrapper(t)
		s := mcp.NewServer(&mcp.Implementation{Name: "advice", Version: "1"}, &mcp.ServerOptions{PageSize: pageSize})
		hang := func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		obj := map[string]any{"type": "object"}
		yes := true
		s.AddTool(&mcp.Tool{Name: "read_issue", InputSchema: obj, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, hang)
		s.AddTool(&mcp.Tool{Name: "put_label", InputSchema: obj, Annotations: &mcp.ToolAnnotations{IdempotentHint: true}}, hang)
		s.AddTool(&mcp.Tool{Name: "delete_repo", InputSchema: obj, Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}}, hang)
		s.AddTool(&mcp.Tool{Name: "send_mail", InputSchema: obj}, hang)
		mcp.AddTool(s, &mcp.Tool{Name: "typed_read", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				<-ctx.Done()
				return nil, nil, ctx.Err()
			})
		gosdk.Attach(s, w)
		cs := connect(t, "http", s, true)
		for _, c := range []struct {
			tool string
			safe bool
		}{{"read_issue", true}, {"put_label", true}, {"typed_read", true}, {"delete_repo", false}, {"send_mail", false}} {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(`{}`)})
			if err != nil {
				t.Fatal(err)
			}
			info, _ := gosdk.InfoOf(res)
			text := toolText(res)
			if info.Code != errs.Timeout.String() {
				t.Fatalf("page size %d, %s: %s", pageSize, c.tool, text)
			}
			if got := strings.Contains(text, caution); got == c.safe || (info.SideEffects == "possible") == c.safe {
				t.Errorf("page size %d, %s (safe to repeat: %v): sideEffects %q, %s", pageSize, c.tool, c.safe, info.SideEffects, text)
			}
		}
	}
}

// TestPlainAddToolRetriedWhenReadOnly: with retries on, a read-only tool
// registered with plain AddTool was never retried (the chain could not see
// its annotations); now it is, and an unannotated one is not.
func TestPlainAddToolRetriedWhenReadOnly(t *testing.T) {
	checkRetriedWhenReadOnly(t, "http", func(s *mcp.Server, _ *wrap.Wrapper, tool *mcp.Tool, h mcp.ToolHandler) {
		s.AddTool(tool, h)
	})
}

// TestAnnotationLookupAsTheCaller: the lookup is a tools/list through the
// server's own middleware, with the call's headers, so middleware that
// refuses requests without credentials lets it through; a successful call
// sends none.
func TestAnnotationLookupAsTheCaller(t *testing.T) {
	w, _ := newWrapper(t)
	s := mcp.NewServer(&mcp.Implementation{Name: "auth", Version: "1"}, nil)
	var lists atomic.Int32
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				lists.Add(1)
			}
			if x := req.GetExtra(); method != "initialize" && method != "notifications/initialized" &&
				(x == nil || x.Header.Get("Authorization") != "Bearer ok-token") {
				return nil, errors.New("unauthenticated")
			}
			return next(ctx, method, req)
		}
	})
	obj := map[string]any{"type": "object"}
	s.AddTool(&mcp.Tool{Name: "read_issue", InputSchema: obj, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if string(req.Params.Arguments) == `{"hang":true}` {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	gosdk.Attach(s, w)
	cs := connectWithHeaders(t, s, headerTransport{"Authorization": "Bearer ok-token"})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_issue", Arguments: json.RawMessage(`{}`)})
	if err != nil || res.IsError || lists.Load() != 0 {
		t.Fatalf("a successful call: %v %s, %d tools/list", err, toolText(res), lists.Load())
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_issue", Arguments: json.RawMessage(`{"hang":true}`)})
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := gosdk.InfoOf(res); info.Code != "timeout" || info.SideEffects != "" || strings.Contains(toolText(res), caution) || lists.Load() == 0 {
		t.Fatalf("a timeout of a read-only tool: %s, %d tools/list", toolText(res), lists.Load())
	}
}

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
	// Three attempts and the annotation lookup may take longer than the
	// 50 ms of newWrapper on a loaded machine: this test is not of timeouts.
	w, _ := newWrapper(t, wrap.WithRetry(policy), wrap.WithTimeout(10*time.Second))
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
