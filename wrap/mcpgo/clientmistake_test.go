package mcpgo_test

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestClientMistakesAreWarnings on mcp-go: an unknown
// tool, prompt or resource is the client's mistake, answered by mcp-go
// before any handler; its log line says WARN with a client-side code.
func TestClientMistakesAreWarnings(t *testing.T) {
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			var logs logbuf.Buffer
			s := server.NewMCPServer("mistakes", "1.0.0")
			s.AddTool(mcp.NewTool("ok"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ok"), nil
			})
			s.AddPrompt(mcp.NewPrompt("greet"), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return mcp.NewGetPromptResult("hi", nil), nil
			})
			s.AddResource(mcp.NewResource("res://ok", "ok"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{mcp.TextResourceContents{URI: "res://ok", Text: "ok"}}, nil
			})
			mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger())))
			cl := testserver.StartOver(t, tr, s)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			adaptercases.CheckClientMistakes(t, &logs, answer, []adaptercases.Mistake{
				{Key: "tool", Name: "nope", Code: "not_found", Call: func() error {
					var req mcp.CallToolRequest
					req.Params.Name = "nope"
					_, err := cl.CallTool(ctx, req)
					return err
				}},
				{Key: "prompt", Name: "nope", Code: "not_found", Call: func() error {
					_, err := cl.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "nope"}})
					return err
				}},
				{Key: "resource", Name: "res://nope", Code: "not_found", Call: func() error {
					_, err := cl.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "res://nope"}})
					return err
				}},
			})
		})
	}
}
