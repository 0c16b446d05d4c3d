package gosdk_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

type createdQueue struct {
	Name string `json:"name"`
	ID   string `json:"id"`
	Echo string `json:"echo"`
}

// TestOverCapSuccessIsNotReportedAsAFailureOnGoSDK: a go-sdk tool whose
// successful answer was over the cap (24 MiB of text plus structured
// content) was answered isError "internal" with no data: the model was
// told a write that happened had failed. Now a tool without an output
// schema stays a success, cut, saying so; one with an output schema (a raw
// tool declaring it, found through tools/list; a typed mcp.AddTool tool;
// a gosdk.Tool read with a paging parameter) gets an error result that says
// the call succeeded: result_too_large, not retryable, sideEffects
// "happened" for a write, how to ask for less for a read.
func TestOverCapSuccessIsNotReportedAsAFailureOnGoSDK(t *testing.T) {
	big := strings.Repeat("queue q-17 created; ", (24<<20)/20) // 24 MiB
	var runs atomic.Int32
	raw := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}},
			StructuredContent: createdQueue{Name: "orders", ID: "q-17", Echo: big}}, nil
	}
	obj := map[string]any{"type": "object"}
	out := map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}
	var logs logbuf.Buffer
	w := wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithLoopGuard(wrap.LoopGuard{}))
	s := mcp.NewServer(&mcp.Implementation{Name: "queues", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "create_queue", InputSchema: obj}, raw)
	s.AddTool(&mcp.Tool{Name: "create_queue_schema", InputSchema: obj, OutputSchema: out}, raw)
	mcp.AddTool(s, &mcp.Tool{Name: "create_queue_typed"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, createdQueue, error) {
		runs.Add(1)
		return nil, createdQueue{Name: "orders", ID: "q-17", Echo: big}, nil
	})
	paged := map[string]any{"type": "object", "properties": map[string]any{"limit": map[string]any{"type": "integer"}}}
	gosdk.Tool(s, w, &mcp.Tool{Name: "list_queues", InputSchema: paged, OutputSchema: out,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, raw)
	gosdk.Attach(s, w)
	cs := connect(t, "http", s, true)
	call := func(t *testing.T, name string) *mcp.CallToolResult {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	t.Run("no output schema: a success, cut", func(t *testing.T) {
		res := call(t, "create_queue")
		size, last := 0, ""
		for _, c := range res.Content {
			last = c.(*mcp.TextContent).Text
			size += len(last)
		}
		if res.IsError || res.StructuredContent != nil || size > wrap.DefaultResultLimit ||
			!strings.Contains(last, "the result was cut from 48 MiB to 1 MiB") || !strings.Contains(last, "its structured content was left out") {
			t.Fatalf("isError %v, structured %v, %d bytes, note %q", res.IsError, res.StructuredContent != nil, size, last)
		}
		if lines, _ := logs.Find("tool", "create_queue"); len(lines) != 1 || lines[0]["outcome"] != "success" || lines[0]["result_cut_from_bytes"] == nil {
			t.Fatalf("log line %v", lines)
		}
	})
	cases := []struct {
		tool, side   string
		calls        int // past the loop guard's 3 failures
		says, saysNo []string
	}{
		{"create_queue_schema", "happened", 4, []string{`tool "create_queue_schema" succeeded`, "its side effects happened: do not call it again"}, []string{"internal", "ask for less"}},
		{"create_queue_typed", "happened", 1, []string{`tool "create_queue_typed" succeeded`, "its side effects happened: do not call it again"}, []string{"internal"}},
		{"list_queues", "", 1, []string{`tool "list_queues" succeeded`, `ask for less with the "limit" parameter`}, []string{"internal", "side effects"}},
	}
	for _, c := range cases {
		t.Run("output schema: "+c.tool, func(t *testing.T) {
			for i := range c.calls {
				res := call(t, c.tool)
				info, ok := gosdk.InfoOf(res)
				if !res.IsError || !ok || info.Code != "result_too_large" || info.Retryable || info.SideEffects != c.side {
					t.Fatalf("call %d: isError %v, info %+v", i, res.IsError, info)
				}
				for _, w := range c.says {
					if !strings.Contains(info.Message, w) {
						t.Fatalf("%q does not say %q", info.Message, w)
					}
				}
				for _, w := range c.saysNo {
					if strings.Contains(info.Message, w) {
						t.Fatalf("%q says %q", info.Message, w)
					}
				}
			}
			lines, _ := logs.Find("tool", c.tool)
			if len(lines) != c.calls || lines[0]["outcome"] != "result_too_large" || lines[0]["level"] != "WARN" || lines[0]["result_cut_from_bytes"] == nil {
				t.Fatalf("log lines %v", lines)
			}
		})
	}
	if n := runs.Load(); n != 7 {
		t.Fatalf("the handler ran %d times, want 7: the loop guard refused a call that succeeded", n)
	}
}
