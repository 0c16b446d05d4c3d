package mcpgo_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
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
			cl := testserver.StartOver(t, tr, s)
			adaptercases.CheckNonObjectArguments(t, adaptercases.ObjectServer{
				Call: func(t *testing.T, tool, args string) (bool, errs.Info, bool) {
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
						t.Fatalf("%s %s: %v", tool, args, err)
					}
					info, ok := mcpgo.InfoOf(res)
					return res.IsError, info, ok
				},
				Refusing: []string{"echo"}, Ran: &ran, Logs: &logs, Bound: "typed",
			})
		})
	}
}
