package wrap_test

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestResultCap: a handler's result over the limit reaches the client cut
// to the limit, valid UTF-8, with a note the model can act on; binary
// content is left out whole, never cut; structured content that does not
// fit is left out (the tool declares no output schema:
// TestOverCapSuccessIsNotReportedAsAFailure has one that does); the log
// line has the original size.
func TestResultCap(t *testing.T) {
	const limit = 64 << 10
	big := strings.Repeat("é", 3*limit) // two bytes a rune: a cut lands mid-rune
	image := strings.Repeat("A", 2*limit)
	cases := []struct {
		name    string
		res     *mcp.CallToolResult
		isError bool
		note    string
	}{
		{"text", mcp.NewToolResultText(big), false, "the result was cut from 384 KiB to 64 KiB"},
		{"a handler-built error echoing a huge path", mcp.NewToolResultError("no such file: " + big), true, "this error was cut from 384 KiB to 64 KiB"},
		{"an image is left out whole", &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("chart:"), mcp.NewImageContent(image, "image/png")}}, false, "1 binary content(s) left out"},
		{"structured content is left out", mcp.NewToolResultStructured(map[string]any{"rows": []any{big}}, "rows"), false,
			"the result was cut from 384 KiB to 64 KiB to fit the model's context; its structured content was left out"},
	}
	var logs logbuf.Buffer
	s := server.NewMCPServer("big", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithResultLimit(limit), wrap.ForTool("uncapped", wrap.WithResultLimit(-1))))
	for _, c := range cases {
		s.AddTool(mcp.NewTool(c.name), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return c.res, nil })
	}
	s.AddTool(mcp.NewTool("uncapped"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(big), nil
	})
	conn := testserver.StartHTTP(t, s)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := conn.CallRaw(t, c.name, `{}`)
			size := 0
			var text strings.Builder
			for _, ct := range res.Content {
				switch v := ct.(type) {
				case mcp.TextContent:
					size += len(v.Text)
					text.WriteString(v.Text)
					if !utf8.ValidString(v.Text) {
						t.Fatal("the cut broke a rune")
					}
				case mcp.ImageContent:
					t.Fatalf("an image of %d bytes got through", len(v.Data))
				}
			}
			if size > limit || res.IsError != c.isError || !strings.Contains(text.String(), c.note) {
				t.Fatalf("%d bytes (limit %d), isError %v: %.200q…", size, limit, res.IsError, text.String())
			}
			lines, _ := logs.Find("tool", c.name)
			if len(lines) != 1 || lines[0]["result_cut_from_bytes"] == nil {
				t.Fatalf("log line %v", lines)
			}
		})
	}
	if res := conn.CallRaw(t, "uncapped", `{}`); len(res.Content[0].(mcp.TextContent).Text) != len(big) {
		t.Fatal("a tool with the cap turned off was cut")
	}
}

// TestResultCapFuzzed: for random results of text, images and structured
// content around the limit, what the cap lets through is within the limit,
// valid JSON and valid UTF-8.
func TestResultCapFuzzed(t *testing.T) {
	const limit = 4 << 10
	rng := rand.New(rand.NewPCG(1, 2))
	runes := []string{"a", "é", "€", "😀", "\n", `"`, `\`}
	str := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(runes[rng.IntN(len(runes))])
		}
		return b.String()
	}
	var next *mcp.CallToolResult
	s := server.NewMCPServer("fuzz", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithResultLimit(limit)))
	s.AddTool(mcp.NewTool("r"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return next, nil })
	conn := testserver.StartHTTP(t, s)
	for i := range 200 {
		res := &mcp.CallToolResult{IsError: rng.IntN(4) == 0}
		for range 1 + rng.IntN(4) {
			switch rng.IntN(3) {
			case 0:
				res.Content = append(res.Content, mcp.NewTextContent(str(rng.IntN(2*limit))))
			case 1:
				res.Content = append(res.Content, mcp.NewImageContent(strings.Repeat("Q", rng.IntN(2*limit)), "image/png"))
			case 2:
				if res.StructuredContent == nil {
					res.StructuredContent = map[string]any{"v": str(rng.IntN(2 * limit))}
				}
			}
		}
		next = res
		got := conn.CallRaw(t, "r", `{}`)
		b, err := json.Marshal(got.Content)
		if err != nil || !json.Valid(b) {
			t.Fatalf("case %d: invalid JSON: %v", i, err)
		}
		size := 0
		for _, c := range got.Content {
			switch v := c.(type) {
			case mcp.TextContent:
				size += len(v.Text)
				if !utf8.ValidString(v.Text) {
					t.Fatalf("case %d: invalid UTF-8", i)
				}
			case mcp.ImageContent:
				size += len(v.Data)
			}
		}
		if sb, _ := json.Marshal(got.StructuredContent); got.StructuredContent != nil {
			size += len(sb)
		}
		if size > limit+len(`{"v":""}`)+64 {
			t.Fatalf("case %d: %d bytes through a %d-byte cap", i, size, limit)
		}
	}
}

// TestGuardsOverStdio: the answer-size cap and the loop guard over mcp-go's
// stdio server, as a stdio host runs it.
func TestGuardsOverStdio(t *testing.T) {
	const limit = 8 << 10
	s := server.NewMCPServer("stdio", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithResultLimit(limit), wrap.WithLoopGuard(wrap.LoopGuard{})))
	runs := 0
	s.AddTool(mcp.NewTool("big"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(strings.Repeat("€", limit)), nil
	})
	s.AddTool(mcp.NewTool("gone"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs++
		return nil, errs.New(errs.NotFound, "no such note")
	})
	cl := testserver.StartStdio(t, s)
	call := func(name string) *mcp.CallToolResult {
		var req mcp.CallToolRequest
		req.Params.Name = name
		res, err := cl.CallTool(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := call("big")
	size := 0
	for _, c := range res.Content {
		size += len(c.(mcp.TextContent).Text)
	}
	if size > limit || !strings.Contains(res.Content[len(res.Content)-1].(mcp.TextContent).Text, "the result was cut from 24 KiB to 8 KiB") {
		t.Fatalf("%d bytes through an %d-byte cap: %+v", size, limit, res.Content[len(res.Content)-1])
	}
	for range 4 {
		call("gone")
	}
	if runs != 3 {
		t.Fatalf("the handler ran %d times for 4 identical failing calls, want 3", runs)
	}
}

// TestCapKeepsTheCause: with the default cap, a handler-built error of
// 2 MiB whose cause is at its end used to be cut to its first 1 MiB (the
// cause gone); a result of 1 048 601 bytes got "cut from 1 MB to 1 MB";
// every tool was told to ask for a smaller page, having a paging parameter
// or not. Now an error keeps its head and its tail, the sizes differ, and
// paging advice names the tool's own parameter, only when it has one.
func TestCapKeepsTheCause(t *testing.T) {
	long := strings.Repeat("q", 2<<20)
	cases := []struct {
		name string
		tool mcp.Tool
		res  *mcp.CallToolResult
		head string // the text cut starts with
		tail string // the text cut ends with
		note []string
		not  []string
	}{
		{"error_cause_at_end", mcp.NewTool("error_cause_at_end"),
			mcp.NewToolResultError("GET /search?q=" + long + ": 414 URI Too Long: dial tcp: connection refused"),
			"GET /search?q=", ": 414 URI Too Long: dial tcp: connection refused",
			[]string{"this error was cut from 2 MiB to 1 MiB", "its middle was left out"}, []string{"ask for"}},
		{"just_over", mcp.NewTool("just_over"), mcp.NewToolResultText(strings.Repeat("a", 1048601)), "aaa", "",
			[]string{"cut from 1048601 bytes to 1048576 bytes"}, []string{"1 MiB to 1 MiB"}},
		{"paged", mcp.NewTool("paged", mcp.WithString("path"), mcp.WithNumber("limit")), mcp.NewToolResultText(long), "qqq", "",
			[]string{"the result was cut from 2 MiB to 1 MiB", `ask for less with the "limit" parameter`}, nil},
		{"unpaged", mcp.NewTool("unpaged", mcp.WithString("path")), mcp.NewToolResultText(long), "qqq", "",
			[]string{"the result was cut from 2 MiB to 1 MiB"}, []string{"ask for", "page", "narrower"}},
	}
	s := server.NewMCPServer("big", "1.0.0")
	mcpgo.Attach(s, wrap.New())
	for _, c := range cases {
		s.AddTool(c.tool, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return c.res, nil })
	}
	conn := testserver.StartHTTP(t, s)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := conn.CallRaw(t, c.name, `{}`)
			var texts []string
			size := 0
			for _, ct := range res.Content {
				tc, _ := ct.(mcp.TextContent)
				texts = append(texts, tc.Text)
				size += len(tc.Text)
			}
			checkCut(t, texts, size, c.head, c.tail, c.note, c.not)
		})
	}
}

// checkCut checks a cut result's texts: within the default cap, the cut
// text's head and tail, the note's words. An error result the handler
// built ends with the call id, after the note.
func checkCut(t *testing.T, texts []string, size int, head, tail string, note, not []string) {
	t.Helper()
	if n := len(texts); n == 3 && strings.HasPrefix(texts[2], "(call id ") {
		texts = texts[:2]
	}
	if len(texts) != 2 || size > wrap.DefaultResultLimit {
		t.Fatalf("%d contents, %d bytes (cap %d)", len(texts), size, wrap.DefaultResultLimit)
	}
	cut, last := texts[0], texts[1]
	if !strings.HasPrefix(cut, head) || !strings.HasSuffix(cut, tail) || !utf8.ValidString(cut) {
		t.Fatalf("the cut text is %.60q…%q, want %q…%q", cut, cut[max(len(cut)-60, 0):], head, tail)
	}
	if tail != "" && !strings.Contains(cut, " bytes left out]") {
		t.Fatal("no mark where the middle was left out")
	}
	for _, w := range note {
		if !strings.Contains(last, w) {
			t.Fatalf("note %q lacks %q", last, w)
		}
	}
	for _, w := range not {
		if strings.Contains(last, w) {
			t.Fatalf("note %q says %q", last, w)
		}
	}
}

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
