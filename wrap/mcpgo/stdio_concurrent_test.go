package mcpgo_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestConcurrentStdioCallsHaveOneLineEach: 40 concurrent calls over mcp-go's
// stdio server (which runs tool calls on a worker pool), successes and
// failures mixed: exactly one log line per call, each with its JSON-RPC
// request id.
func TestConcurrentStdioCallsHaveOneLineEach(t *testing.T) {
	var logs logbuf.Buffer
	s := server.NewMCPServer("stdio", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger())))
	s.AddTool(mcp.NewTool("work", mcp.WithNumber("n")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		time.Sleep(time.Millisecond)
		if int(req.GetFloat("n", 0))%3 == 0 {
			return nil, fmt.Errorf("item %d is locked", int(req.GetFloat("n", 0)))
		}
		return mcp.NewToolResultText("done"), nil
	})
	cl := testserver.StartStdio(t, s)
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var req mcp.CallToolRequest
			req.Params.Name = "work"
			req.Params.Arguments = map[string]any{"n": i}
			if _, err := cl.CallTool(t.Context(), req); err != nil {
				t.Errorf("call %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	lines, err := logs.Find("tool", "work")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[any]int{}
	for _, l := range lines {
		ids[l["request_id"]]++
	}
	if len(lines) != n || len(ids) != n || ids[nil] != 0 {
		t.Fatalf("%d lines, %d distinct request ids (%d without one) for %d calls", len(lines), len(ids), ids[nil], n)
	}
}
