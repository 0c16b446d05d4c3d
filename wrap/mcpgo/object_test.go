package mcpgo_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestRawToolRefusesNonObjectArguments: a raw tool called with arguments
// that are not a JSON object ran and answered success; MCP requires an
// object. The call is an invalid_argument
// isError result naming what was sent, and the handler does not run; null
// or absent arguments still reach it.
func TestRawToolRefusesNonObjectArguments(t *testing.T) {
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			var logs logbuf.Buffer
			var ran atomic.Int32
			s := server.NewMCPServer("raw", "1.0.0")
			s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				ran.Add(1)
				return mcp.NewToolResultText("ok"), nil
			})
			w := wrap.New(wrap.WithLogger(logs.Logger()))
			mcpgo.Attach(s, w)
			s.AddTools(mcpgo.Typed(w, mcp.NewTool("typed"), func(context.Context, mcp.CallToolRequest, struct {
				City string `json:"city" validate:"required"`
			}) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			}))
			var cl *client.Client
			if tr == "stdio" {
				cl = testserver.StartStdio(t, s)
			} else {
				cl = testserver.StartHTTP(t, s).Client
			}
			call := func(tool, args string) *mcp.CallToolResult {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				var req mcp.CallToolRequest
				req.Params.Name = tool
				if args != "" {
					req.Params.RawArguments = json.RawMessage(args)
				}
				res, err := cl.CallTool(ctx, req)
				if err != nil {
					t.Fatalf("%s: %v", args, err)
				}
				return res
			}
			for _, c := range []struct{ args, got string }{
				{`"text"`, "a string"}, {`[1]`, "an array"}, {`42`, "a number"}, {`true`, "a boolean"}, {` false`, "a boolean"},
			} {
				res := call("echo", c.args)
				info, ok := mcpgo.InfoOf(res)
				want := "the arguments must be a JSON object, got " + c.got
				if !res.IsError || !ok || info.Code != "invalid_argument" || !strings.Contains(info.Message, want) {
					t.Errorf("%s: isError=%v info=%+v, want invalid_argument %q", c.args, res.IsError, info, want)
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
			lines, err := logs.Find("outcome", "invalid_argument")
			if err != nil || len(lines) != 5 || lines[0]["level"] != "WARN" {
				t.Errorf("%d invalid_argument lines (%v), want 5 at WARN: %v", len(lines), err, lines)
			}
			// A typed tool keeps its binder's answer, which lists what it expects.
			info, _ := mcpgo.InfoOf(call("typed", `"Paris"`))
			if want := `the arguments must be a JSON object, got a string; expected an object with "city" (required)`; !strings.Contains(info.Message, want) {
				t.Errorf("typed tool: %q, want %q", info.Message, want)
			}
		})
	}
}
