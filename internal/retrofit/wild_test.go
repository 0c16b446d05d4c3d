package retrofit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// newWildServer is built the way a third-party server builds itself: a
// constructor that ends in opts..., its own rate-limit middleware
// registered first (returning a plain error), and its own server.WithHooks
// given last, after everything the caller passed.
func newWildServer(dir string, opts ...server.ServerOption) *server.MCPServer {
	hooks := &server.Hooks{}
	hooks.AddOnError(func(context.Context, any, mcp.MCPMethod, any, error) {})
	limited := func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.GetString("who", "") == "flood" {
				return nil, errors.New("rate limit exceeded: too many requests from this session")
			}
			return next(ctx, req)
		}
	}
	all := append([]server.ServerOption{server.WithToolHandlerMiddleware(limited)}, opts...)
	all = append(all, server.WithHooks(hooks))
	s := server.NewMCPServer("notes", "1.0.0", all...)
	s.AddTool(mcp.NewTool("read_note", mcp.WithString("name")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		name := req.GetString("name", "")
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("read note %s: %w", name, err)
		}
		return mcp.NewToolResultText(string(b)), nil
	})
	s.AddTool(mcp.NewTool("get_dashboard"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var p struct {
			UID string `json:"uid"`
		}
		if err := json.Unmarshal(req.Params.RawArguments, &p); err != nil {
			return nil, fmt.Errorf("unmarshal args: %s", err)
		}
		return mcp.NewToolResultText("dashboard " + p.UID), nil
	})
	s.AddTool(mcp.NewTool("search"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		body := `{"error":"quota","request":"GET /v1/search?api_key=sk-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0"}`
		return mcp.NewToolResultError("upstream answered 429: " + body), nil
	})
	return s
}

// TestRetrofitSurvivesAWildServer drives a server written the way others
// write them, bare and with mcpwrap attached after construction, and
// compares what the model reads: the wrapped answer is never less, never
// holds a secret, and every request has exactly one log line.
func TestRetrofitSurvivesAWildServer(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "todo.md"), []byte("buy milk"), 0o600); err != nil {
		t.Fatal(err)
	}
	bare := testserver.StartHTTP(t, newWildServer(dir), client.WithProtocolVersion("2025-11-25"))
	forms := []struct {
		name  string
		build func(w *wrap.Wrapper) *server.MCPServer
	}{
		{"Attach after the constructor", func(w *wrap.Wrapper) *server.MCPServer {
			s := newWildServer(dir)
			mcpgo.Attach(s, w)
			return s
		}},
		// Between the server's own middleware and its WithHooks, which
		// replaces the hooks: the chain is still outermost and the hooks
		// are added again at the first tool call.
		{"Option inside the server's options", func(w *wrap.Wrapper) *server.MCPServer {
			return newWildServer(dir, attached(w))
		}},
	}
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			var logs logbuf.Buffer
			wrapped := testserver.StartHTTP(t, f.build(wrap.New(wrap.WithLogger(logs.Logger()))), client.WithProtocolVersion("2025-11-25"))
			checkWild(t, bare, wrapped, &logs)
		})
	}
}

func checkWild(t *testing.T, bare, wrapped *testserver.Conn, logs *logbuf.Buffer) {

	cases := []struct {
		name, tool, args string
		// model is what the wrapped answer's text must contain; bare is what
		// bare sent (as a JSON-RPC error or a result).
		model, bare string
		secret      string
	}{
		{"the server's own rate limiter", "read_note", `{"name":"todo.md","who":"flood"}`,
			"rate limit exceeded: too many requests from this session", "rate limit exceeded", ""},
		{"a missing file keeps the handler's words", "read_note", `{"name":"gone.md"}`,
			"read note gone.md: not found", "read note gone.md", ""},
		{"a decode error formatted with %s names the parameter", "get_dashboard", `{"uid":42}`,
			`parameter "uid" must be a string, got number`, "unmarshal args", ""},
		{"a handler-built error with a key in the upstream's body", "search", `{}`,
			"upstream answered 429", "upstream answered 429", "sk-test-9f8e7d6c5b4a39281706f5e4d3c2b1a0"},
		{"success", "read_note", `{"name":"todo.md"}`, "buy milk", "buy milk", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := bareText(t, bare, c.tool, c.args)
			if !strings.Contains(b, c.bare) {
				t.Fatalf("bare sent %q, want it to contain %q (the fixture changed?)", b, c.bare)
			}
			res := wrapped.CallRaw(t, c.tool, c.args)
			got := firstText(res)
			if !strings.Contains(got, c.model) {
				t.Fatalf("the model reads %q, want %q (bare sent %q)", got, c.model, b)
			}
			if c.model != "buy milk" && !res.IsError {
				t.Fatalf("a failure answered as a success: %q", got)
			}
			if c.secret != "" && (strings.Contains(got, c.secret) || strings.Contains(logs.String(), c.secret)) {
				t.Fatalf("the secret reached the model or the log: %q", got)
			}
		})
	}
	// An unknown tool: mcp-go answers it before any middleware; the hooks,
	// added to the server's own WithHooks, log it.
	if _, err := wrapped.Call(t.Context(), "no_such_tool", nil); err == nil {
		t.Fatal("unknown tool answered")
	}
	lines, err := logs.Find("msg", "tool call")
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != len(cases)+1 {
		t.Fatalf("%d log lines for %d requests:\n%s", len(lines), len(cases)+1, logs.String())
	}
	search, _ := logs.Find("tool", "search")
	if len(search) != 1 || search[0]["level"] != "WARN" || !strings.Contains(fmt.Sprint(search[0]["cause"]), "upstream answered 429") {
		t.Fatalf("a handler-built error result's line: %v", search)
	}
}

// bareText is what bare sent: the result's text, or the JSON-RPC error's
// message.
func bareText(t *testing.T, c *testserver.Conn, tool, args string) string {
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.RawArguments = json.RawMessage(args)
	res, err := c.Client.CallTool(t.Context(), req)
	if err != nil {
		return err.Error()
	}
	return firstText(res)
}

// firstText is the text of a result's first text content.
func firstText(res *mcp.CallToolResult) string {
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			return t.Text
		}
	}
	return ""
}
