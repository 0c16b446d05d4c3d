package gosdk_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
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
			cs := sessionOver(t, tr, s)
			adaptercases.CheckNonObjectArguments(t, adaptercases.ObjectServer{
				Call: func(t *testing.T, tool, args string) (bool, errs.Info, bool) {
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
					info, ok := gosdk.InfoOf(res)
					return res.IsError, info, ok
				},
				Refusing: []string{"echo", "typed"}, Ran: &ran, Logs: tel.logs, Bound: "bound",
			})
		})
	}
}
