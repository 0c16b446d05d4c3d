package gosdk_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// TestRawToolRefusesNonObjectArguments on go-sdk: MCP requires a call's
// arguments to be a JSON object. A raw tool (plain AddTool) and a go-sdk
// typed tool called with anything else are an invalid_argument isError
// result naming what was sent; the raw tool's handler used to run and
// answer success. Null or absent arguments still reach the handler.
func TestRawToolRefusesNonObjectArguments(t *testing.T) {
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			w, tel := newWrapper(t)
			var ran atomic.Int32
			s := mcp.NewServer(&mcp.Implementation{Name: "raw", Version: "1.0.0"}, nil)
			s.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					ran.Add(1)
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
				})
			mcp.AddTool(s, &mcp.Tool{Name: "typed"}, func(context.Context, *mcp.CallToolRequest, struct {
				City string `json:"city,omitempty"`
			}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
			})
			gosdk.Attach(s, w)
			gosdk.AddTool(s, w, &mcp.Tool{Name: "bound"}, func(context.Context, *mcp.CallToolRequest, struct {
				City string `json:"city" validate:"required"`
			}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
			})
			var cs *mcp.ClientSession
			if tr == "stdio" {
				cs = pipeSession(t, s)
			} else {
				cs = connect(t, "http", s, true)
			}
			call := func(tool, args string) *mcp.CallToolResult {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				p := &mcp.CallToolParams{Name: tool}
				if args != "" {
					p.Arguments = json.RawMessage(args)
				}
				res, err := cs.CallTool(ctx, p)
				if err != nil {
					t.Fatalf("%s %s: %v", tool, args, err)
				}
				return res
			}
			for _, tool := range []string{"echo", "typed"} {
				for _, c := range []struct{ args, got string }{
					{`"text"`, "a string"}, {`[1]`, "an array"}, {`42`, "a number"}, {`true`, "a boolean"},
				} {
					res := call(tool, c.args)
					info, ok := gosdk.InfoOf(res)
					want := "the arguments must be a JSON object, got " + c.got
					if !res.IsError || !ok || info.Code != "invalid_argument" || !strings.Contains(info.Message, want) {
						t.Errorf("%s %s: isError=%v info=%+v, want invalid_argument %q", tool, c.args, res.IsError, info, want)
					}
				}
			}
			if n := ran.Load(); n != 0 {
				t.Errorf("the handler ran %d times on non-object arguments", n)
			}
			for _, args := range []string{"", "null", `{}`, `{"text":"hi"}`} {
				if res := call("echo", args); res.IsError {
					t.Errorf("%q: refused: %+v", args, res.Content)
				}
			}
			if n := ran.Load(); n != 4 {
				t.Errorf("the handler ran %d times on null, absent and object arguments, want 4", n)
			}
			lines, err := tel.logs.Find("outcome", "invalid_argument")
			if err != nil || len(lines) != 8 || lines[0]["level"] != "WARN" {
				t.Errorf("%d invalid_argument lines (%v), want 8 at WARN", len(lines), err)
			}
			// A tool typed by gosdk.AddTool keeps its binder's answer, which
			// lists what it expects.
			info, _ := gosdk.InfoOf(call("bound", `"Paris"`))
			if want := `the arguments must be a JSON object, got a string; expected an object with "city" (required)`; !strings.Contains(info.Message, want) {
				t.Errorf("bound tool: %q, want %q", info.Message, want)
			}
		})
	}
}
