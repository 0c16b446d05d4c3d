package wrap_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

type queue struct {
	Name string `json:"name"`
	ID   string `json:"id"`
	Echo string `json:"echo"`
}

// TestOverCapSuccessIsNotReportedAsAFailure: a tool whose successful
// answer was over the cap (24 MiB of text plus structuredContent: a created
// queue echoed back) was answered isError "internal" with no data, so the
// model was told a write that happened had failed, and tried it again. Now
// a tool without an output schema stays a success, cut, saying so; one
// whose output schema requires the structured content gets an error result
// that says the call succeeded (result_too_large, not retryable), that a
// write's side effects happened and it must not be repeated; a read is
// told how to ask for less. The loop guard does not count it as a failure.
func TestOverCapSuccessIsNotReportedAsAFailure(t *testing.T) {
	big := strings.Repeat("queue q-17 created; ", (24<<20)/20) // 24 MiB
	var runs atomic.Int32
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent(big)},
			StructuredContent: queue{Name: "orders", ID: "q-17", Echo: big}}, nil
	}
	var logs logbuf.Buffer
	s := server.NewMCPServer("queues", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithLoopGuard(wrap.LoopGuard{})))
	s.AddTool(mcp.NewTool("create_queue"), h)
	s.AddTool(mcp.NewTool("create_queue_typed", mcp.WithOutputSchema[queue]()), h)
	s.AddTool(mcp.NewTool("list_queues", mcp.WithOutputSchema[queue](), mcp.WithNumber("limit"),
		mcp.WithReadOnlyHintAnnotation(true)), h)
	conn := testserver.StartHTTP(t, s)

	t.Run("no output schema: a success, cut", func(t *testing.T) {
		res := conn.CallRaw(t, "create_queue", `{}`)
		size, text := 0, ""
		for _, c := range res.Content {
			size += len(c.(mcp.TextContent).Text)
			text = c.(mcp.TextContent).Text
		}
		if res.IsError || res.StructuredContent != nil || size > wrap.DefaultResultLimit ||
			!strings.Contains(text, "the result was cut from 48 MiB to 1 MiB") || !strings.Contains(text, "its structured content was left out") {
			t.Fatalf("isError %v, structured %v, %d bytes, note %q", res.IsError, res.StructuredContent != nil, size, text)
		}
		lines, _ := callLines(&logs, "create_queue")
		if len(lines) != 1 || lines[0]["outcome"] != "success" || lines[0]["result_cut_from_bytes"] == nil {
			t.Fatalf("log line %v", lines)
		}
	})
	cases := []struct {
		tool, side   string
		calls        int // past the loop guard's 3 failures
		says, saysNo []string
	}{
		{"create_queue_typed", "happened", 4,
			[]string{`tool "create_queue_typed" succeeded, but its result (48 MiB) was not sent`, "its side effects happened: do not call it again", "(call id "},
			[]string{"internal", "ask for less"}},
		{"list_queues", "", 1,
			[]string{`tool "list_queues" succeeded`, `ask for less with the "limit" parameter`, "(call id "},
			[]string{"internal", "side effects"}},
	}
	for _, c := range cases {
		t.Run("output schema: "+c.tool, func(t *testing.T) {
			for i := range c.calls {
				res := conn.CallRaw(t, c.tool, `{}`)
				info, ok := mcpgo.InfoOf(res)
				text := firstText(res)
				if !res.IsError || !ok || info.Code != "result_too_large" || info.Retryable || info.SideEffects != c.side || info.Message != text {
					t.Fatalf("call %d: isError %v, info %+v", i, res.IsError, info)
				}
				for _, w := range c.says {
					if !strings.Contains(text, w) {
						t.Fatalf("%q does not say %q", text, w)
					}
				}
				for _, w := range c.saysNo {
					if strings.Contains(text, w) {
						t.Fatalf("%q says %q", text, w)
					}
				}
			}
			lines, _ := callLines(&logs, c.tool)
			if len(lines) != c.calls || lines[0]["outcome"] != "result_too_large" || lines[0]["level"] != "WARN" || lines[0]["result_cut_from_bytes"] == nil {
				t.Fatalf("log lines %v", lines)
			}
		})
	}
	if n := runs.Load(); n != 6 {
		t.Fatalf("the handler ran %d times, want 6: the loop guard refused a call that succeeded", n)
	}
}
