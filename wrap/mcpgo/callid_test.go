package mcpgo_test

import (
	"context"
	"strings"
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

// cityArgs is the typed tool's input: a required city.
type cityArgs struct {
	City string `json:"city" validate:"required"`
}

// TestEveryErrorResultCarriesItsCallID: over streamable HTTP, with a real
// mcp-go client, every error result the chain builds — a plain error shown
// scrubbed, an errs error, a panic, a timeout, a validation failure, the
// loop guard's refusal, a rate-limit refusal, a success too large to send
// whole for its output schema — has
// structuredContent.error.callId, equal to the call_id of the call's log
// line, so that a user can hand the operator the id that finds it. A plain
// error shown to the model used to be answered with its text alone. The
// cases are adaptercases.CheckCallIDs, shared with wrap/gosdk.
func TestEveryErrorResultCarriesItsCallID(t *testing.T) {
	var logs logbuf.Buffer
	w := wrap.New(adaptercases.CallIDOptions(logs.Logger())...)
	s := server.NewMCPServer("ids", "1.0.0")
	for _, tool := range adaptercases.CallIDTools() {
		s.AddTool(mcp.NewTool(tool.Name), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := tool.Run(ctx); err != nil {
				return nil, err
			}
			return mcp.NewToolResultText("ok"), nil
		})
	}
	s.AddTool(mcp.NewTool("huge", mcp.WithRawOutputSchema([]byte(`{"type":"object"}`))), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultStructured(map[string]any{"rows": strings.Repeat("x", 4<<10)}, "rows"), nil
	})
	s.AddTools(mcpgo.Typed(w, mcp.NewTool("typed"), func(_ context.Context, _ mcp.CallToolRequest, a cityArgs) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(a.City), nil
	}))
	mcpgo.Attach(s, w)

	url, stop, err := testserver.Listen(s)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	// A credential names the caller for the loop guard (mcp-go's client
	// speaks the stateless protocol: no session).
	cl := testserver.Connect(t, url, map[string]string{"Authorization": "Bearer ids"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	adaptercases.CheckCallIDs(t, &logs, func(t *testing.T, name string) (bool, errs.Info, bool) {
		var req mcp.CallToolRequest
		req.Params.Name = name
		req.Params.Arguments = map[string]any{}
		res, err := cl.CallTool(ctx, req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		info, ok := mcpgo.InfoOf(res)
		return res.IsError, info, ok
	})
}
