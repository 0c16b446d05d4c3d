package wrap_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestOverCapSuccessIsNotReportedAsAFailure: a tool whose successful
// answer was over the cap (2 MiB of text plus structuredContent: a created
// queue echoed back) was answered isError "internal" with no data, so the
// model was told a write that happened had failed, and tried it again. Now
// a tool without an output schema stays a success, cut, saying so; one
// whose output schema requires the structured content gets an error result
// that says the call succeeded (result_too_large, not retryable), that a
// write's side effects happened and it must not be repeated; a read is
// told how to ask for less. The loop guard does not count it as a failure.
func TestOverCapSuccessIsNotReportedAsAFailure(t *testing.T) {
	big, queue := adaptercases.OverCapQueue()
	var runs atomic.Int32
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(big)},
			StructuredContent: queue}, nil
	}
	var logs logbuf.Buffer
	s := server.NewMCPServer("queues", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithLoopGuard(wrap.LoopGuard{})))
	s.AddTool(mcp.NewTool("create_queue"), h)
	s.AddTool(mcp.NewTool("create_queue_typed", mcp.WithOutputSchema[adaptercases.CreatedQueue]()), h)
	s.AddTool(mcp.NewTool("list_queues", mcp.WithOutputSchema[adaptercases.CreatedQueue](), mcp.WithNumber("limit"),
		mcp.WithReadOnlyHintAnnotation(true)), h)
	conn := testserver.StartHTTP(t, s)

	call := func(t *testing.T, tool string) adaptercases.OverCapAnswer {
		res := conn.CallRaw(t, tool, `{}`)
		a := adaptercases.OverCapAnswer{IsError: res.IsError, Structured: res.StructuredContent != nil}
		for _, c := range res.Content {
			a.Texts = append(a.Texts, c.(mcp.TextContent).Text)
		}
		a.Info, a.HasInfo = mcpgo.InfoOf(res)
		if a.HasInfo && a.Info.Message != firstText(res) {
			t.Fatalf("the model reads %q, structuredContent.error says %q", firstText(res), a.Info.Message)
		}
		return a
	}
	lines := func(tool string) []map[string]any {
		l, _ := callLines(&logs, tool)
		return l
	}
	adaptercases.CheckOverCap(t, call, lines, []adaptercases.OverCapCase{
		{Tool: "create_queue_typed", Side: "happened", Calls: 4,
			Says:   []string{`tool "create_queue_typed" succeeded, but its result (4 MiB) was not sent`, "its side effects happened: do not call it again", "(call id "},
			SaysNo: []string{"internal", "ask for less"}},
		{Tool: "list_queues", Calls: 1,
			Says:   []string{`tool "list_queues" succeeded`, `ask for less with the "limit" parameter`, "(call id "},
			SaysNo: []string{"internal", "side effects"}},
	})
	if n := runs.Load(); n != 6 {
		t.Fatalf("the handler ran %d times, want 6: the loop guard refused a call that succeeded", n)
	}
}
