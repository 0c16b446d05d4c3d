package gosdk_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// TestResultCapOnGoSDK: the answer-size cap of the chain on a go-sdk
// server, as on mcp-go (it was mcp-go's only): text cut at a rune boundary
// with the note, an image left out whole, structured content left out (the
// tool has no output schema).
func TestResultCapOnGoSDK(t *testing.T) {
	const limit = 16 << 10
	big := strings.Repeat("é", limit)
	cases := []struct {
		name    string
		res     *mcp.CallToolResult
		isError bool
		note    string
	}{
		{"text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}}}, false, "the result was cut from 32 KiB to 16 KiB"},
		{"image", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "chart:"}, &mcp.ImageContent{Data: make([]byte, 2*limit), MIMEType: "image/png"}}}, false, "1 binary content(s) left out"},
		{"structured", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "rows"}}, StructuredContent: map[string]any{"rows": []any{big}}}, false,
			"the result was cut from 32 KiB to 16 KiB to fit the model's context; its structured content was left out"},
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1.0.0"}, nil)
	for _, c := range cases {
		s.AddTool(&mcp.Tool{Name: c.name, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return c.res, nil })
	}
	gosdk.Attach(s, wrap.New(wrap.WithResultLimit(limit)))
	cs := connect(t, "memory", s, true)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := callEmpty(t, cs, c.name)
			size := 0
			var text strings.Builder
			for _, ct := range res.Content {
				switch v := ct.(type) {
				case *mcp.TextContent:
					size += len(v.Text)
					text.WriteString(v.Text)
					if !utf8.ValidString(v.Text) {
						t.Fatal("the cut broke a rune")
					}
				case *mcp.ImageContent:
					t.Fatalf("an image of %d bytes got through", len(v.Data))
				}
			}
			if size > limit || res.IsError != c.isError || !strings.Contains(text.String(), c.note) {
				t.Fatalf("%d bytes (limit %d), isError %v: %.200q…", size, limit, res.IsError, text.String())
			}
		})
	}
}

// callEmpty calls tool with the arguments {}, failing the test if the
// call itself fails.
func callEmpty(t *testing.T, cs *mcp.ClientSession, tool string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCapKeepsTheCauseOnGoSDK: TestCapKeepsTheCause in wrap, over go-sdk's
// streamable HTTP: an error result keeps its head and its tail, sizes that
// differ, paging advice only for a tool whose input schema has a paging
// parameter (known to the chain through gosdk.Tool; a raw s.AddTool tool
// gets the neutral note).
func TestCapKeepsTheCauseOnGoSDK(t *testing.T) {
	long := strings.Repeat("q", 2<<20)
	text := func(s string, isError bool) *mcp.CallToolResult {
		return &mcp.CallToolResult{IsError: isError, Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	paged := map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}, "maxResults": map[string]any{"type": "integer"}}}
	cases := []struct {
		name       string
		schema     any
		own        bool // registered with gosdk.Tool
		res        *mcp.CallToolResult
		head, tail string
		note, not  []string
	}{
		{"error_cause_at_end", map[string]any{"type": "object"}, false,
			text("GET /search?q="+long+": 414 URI Too Long: dial tcp: connection refused", true),
			"GET /search?q=", ": 414 URI Too Long: dial tcp: connection refused",
			[]string{"this error was cut from 2 MiB to 1 MiB", "its middle was left out"}, []string{"ask for"}},
		{"just_over", map[string]any{"type": "object"}, false, text(strings.Repeat("a", 1048601), false), "aaa", "",
			[]string{"cut from 1048601 bytes to 1048576 bytes"}, []string{"1 MiB to 1 MiB"}},
		{"paged", paged, true, text(long, false), "qqq", "",
			[]string{"the result was cut from 2 MiB to 1 MiB", `ask for less with the "maxResults" parameter`}, nil},
		{"unpaged", map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}, true,
			text(long, false), "qqq", "", []string{"the result was cut from 2 MiB to 1 MiB"}, []string{"ask for", "page", "narrower"}},
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1.0.0"}, nil)
	w := wrap.New()
	for _, c := range cases {
		h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return c.res, nil }
		tool := &mcp.Tool{Name: c.name, InputSchema: c.schema}
		if c.own {
			gosdk.Tool(s, w, tool, h)
		} else {
			s.AddTool(tool, h)
		}
	}
	gosdk.Attach(s, w)
	cs := connect(t, "http", s, true)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := callEmpty(t, cs, c.name)
			var texts []string
			size := 0
			for _, ct := range res.Content {
				tc, _ := ct.(*mcp.TextContent)
				if tc == nil {
					t.Fatalf("content %T", ct)
				}
				texts = append(texts, tc.Text)
				size += len(tc.Text)
			}
			if n := len(texts); n == 3 && strings.HasPrefix(texts[2], "(call id ") {
				texts = texts[:2] // an error result the handler built ends with the call id
			}
			if len(texts) != 2 || size > wrap.DefaultResultLimit {
				t.Fatalf("%d contents, %d bytes (cap %d)", len(texts), size, wrap.DefaultResultLimit)
			}
			cut, last := texts[0], texts[1]
			if !strings.HasPrefix(cut, c.head) || !strings.HasSuffix(cut, c.tail) || !utf8.ValidString(cut) {
				t.Fatalf("the cut text is %.60q…%q, want %q…%q", cut, cut[max(len(cut)-60, 0):], c.head, c.tail)
			}
			for _, w := range c.note {
				if !strings.Contains(last, w) {
					t.Fatalf("note %q lacks %q", last, w)
				}
			}
			for _, w := range c.not {
				if strings.Contains(last, w) {
					t.Fatalf("note %q says %q", last, w)
				}
			}
		})
	}
}

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
