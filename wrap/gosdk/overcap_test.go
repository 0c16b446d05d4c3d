package gosdk_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// TestOverCapSuccessIsNotReportedAsAFailureOnGoSDK: a go-sdk tool whose
// successful answer was over the cap (2 MiB of text plus structured
// content) was answered isError "internal" with no data: the model was
// told a write that happened had failed. Now a tool without an output
// schema stays a success, cut, saying so; one with an output schema (a raw
// tool declaring it, found through tools/list; a typed mcp.AddTool tool;
// a gosdk.Tool read with a paging parameter) gets an error result that says
// the call succeeded: result_too_large, not retryable, sideEffects
// "happened" for a write, how to ask for less for a read.
func TestOverCapSuccessIsNotReportedAsAFailureOnGoSDK(t *testing.T) {
	big, queue := adaptercases.OverCapQueue()
	var runs atomic.Int32
	raw := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}},
			StructuredContent: queue}, nil
	}
	obj := map[string]any{"type": "object"}
	out := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}
	var logs logbuf.Buffer
	w := wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithLoopGuard(wrap.LoopGuard{}))
	s := mcp.NewServer(&mcp.Implementation{Name: "queues", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "create_queue", InputSchema: obj}, raw)
	s.AddTool(&mcp.Tool{Name: "create_queue_schema", InputSchema: obj, OutputSchema: out}, raw)
	mcp.AddTool(s, &mcp.Tool{Name: "create_queue_typed"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, adaptercases.CreatedQueue, error) {
		runs.Add(1)
		return nil, queue, nil
	})
	paged := map[string]any{"type": "object", "properties": map[string]any{"limit": map[string]any{"type": "integer"}}}
	gosdk.Tool(s, w, &mcp.Tool{Name: "list_queues", InputSchema: paged, OutputSchema: out,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, raw)
	gosdk.Attach(s, w)
	cs := connect(t, "http", s, true)
	call := func(t *testing.T, tool string) adaptercases.OverCapAnswer {
		res := callEmpty(t, cs, tool)
		a := adaptercases.OverCapAnswer{IsError: res.IsError, Structured: res.StructuredContent != nil}
		for _, c := range res.Content {
			a.Texts = append(a.Texts, c.(*mcp.TextContent).Text)
		}
		a.Info, a.HasInfo = gosdk.InfoOf(res)
		return a
	}
	lines := func(tool string) []map[string]any {
		l, _ := logs.Find("tool", tool)
		return l
	}
	adaptercases.CheckOverCap(t, call, lines, []adaptercases.OverCapCase{
		{Tool: "create_queue_schema", Side: "happened", Calls: 4,
			Says:   []string{`tool "create_queue_schema" succeeded`, "its side effects happened: do not call it again"},
			SaysNo: []string{"internal", "ask for less"}},
		{Tool: "create_queue_typed", Side: "happened", Calls: 1,
			Says:   []string{`tool "create_queue_typed" succeeded`, "its side effects happened: do not call it again"},
			SaysNo: []string{"internal"}},
		{Tool: "list_queues", Calls: 1,
			Says:   []string{`tool "list_queues" succeeded`, `ask for less with the "limit" parameter`},
			SaysNo: []string{"internal", "side effects"}},
	})
	if n := runs.Load(); n != 7 {
		t.Fatalf("the handler ran %d times, want 7: the loop guard refused a call that succeeded", n)
	}
}
