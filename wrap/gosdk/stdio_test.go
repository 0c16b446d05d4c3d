package gosdk

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/wrap"
)

// TestStdioSurvivesDeepNesting: go-sdk ends a stdio session on a message
// nested deeper than it decodes (v1.8.0: 1 000 levels, v1.7.0: 10 000) or
// on a line longer than MaxLineLength (v1.8.0); the server exits. Through
// Transport the deep call and the long one are answered with -32600 for
// their ids and the next call on the same session is answered.
func TestStdioSurvivesDeepNesting(t *testing.T) {
	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	answers := guardedAnswers(t, 64<<10, 4,
		`{"jsonrpc":"2.0","id":"deep-7","method":"tools/call","params":{"name":"echo","arguments":{"v":`+deep+`}}}`,
		`{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"echo","arguments":{"v":"`+strings.Repeat("x", 1<<20)+`"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
	)
	for _, want := range []string{
		`{"jsonrpc":"2.0","id":"deep-7","error":{"code":-32600,"message":"the request is nested deeper than`,
		`{"jsonrpc":"2.0","id":"long","error":{"code":-32600,"message":"the request is longer than 65536 bytes`,
		`"id":3,"result":{"content":[{"type":"text","text":"ok"}]`,
	} {
		answered(t, answers, want)
	}
}

// TestStdioSurvivesMalformedLines: go-sdk ends a stdio session, and
// retrofitted gopls exited with status 2, on one line that is not JSON
// (a truncated write, a stray line) or JSON that is no JSON-RPC message
// ({}, 123, [ ], "jsonrpc":"1.0"): every later call of the client failed
// with a closed pipe.
// Through Transport each such line is answered (-32700 for text that is
// not JSON, -32600 for JSON that is no message, with the line's id when it
// shows one) and the next call is answered.
func TestStdioSurvivesMalformedLines(t *testing.T) {
	answers := guardedAnswers(t, 0, 9,
		`[ ]`,
		`{"jsonrpc":"1.0","id":8,"method":"ping"}`,
		`{not json`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ec`,
		`123`,
		`{}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{}}} }`,
		``,
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":{"v":"{not json"}}}`,
	)
	for _, want := range []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"the line is not valid JSON"}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32700,`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the line is not a JSON-RPC 2.0 message"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`,
		`{"jsonrpc":"2.0","id":5,"error":{"code":-32700,`,
		`"id":6,"result":{"content":[{"type":"text","text":"ok"}]`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`,
		`{"jsonrpc":"2.0","id":8,"error":{"code":-32600,`,
	} {
		answers = answered(t, answers, want)
	}
}

// TestStdioAnswersBatchesItsProtocolHasNot: go-sdk ends a session of
// protocol 2025-06-18 or later on a JSON-RPC batch (the protocol has none
// since); through the guard each request in it gets an error for its id
// and the session goes on. A session of 2025-03-26 keeps its batches.
func TestStdioAnswersBatchesItsProtocolHasNot(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	batch := `[` + fmt.Sprintf(call, "11") + `, {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}},` +
		fmt.Sprintf(call, `"b"`) + `]`
	for _, version := range []string{"2025-06-18", "2025-11-25", "2099-01-01"} {
		answers := guardedAnswersAt(t, version, 0, 5, batch, `  [{"jsonrpc":"2.0","method":"notifications/x"}]`, fmt.Sprintf(call, "12"))
		for _, want := range []string{
			`{"jsonrpc":"2.0","id":11,"error":{"code":-32600,"message":"JSON-RPC batches are not part of MCP`,
			`{"jsonrpc":"2.0","id":"b","error":{"code":-32600,`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"JSON-RPC batches`,
			`"id":12,"result":{"content":[{"type":"text","text":"ok"}]`,
		} {
			answers = answered(t, answers, want)
		}
	}
	answers := guardedAnswersAt(t, "2025-03-26", 0, 3, `[`+fmt.Sprintf(call, "11")+`,`+fmt.Sprintf(call, `"b"`)+`]`, fmt.Sprintf(call, "12"))
	for _, want := range []string{`[{"jsonrpc":"2.0","id":11,"result"`, `"id":12,"result"`} {
		answered(t, answers, want)
	}
}

// answered returns answers without the first one holding want; it fails
// when none does.
func answered(t *testing.T, answers []string, want string) []string {
	t.Helper()
	for i, a := range answers {
		if strings.Contains(a, want) {
			return append(answers[:i:i], answers[i+1:]...)
		}
	}
	t.Errorf("no answer holds %s: %v", want, answers)
	return answers
}

// guardedAnswers runs an attached server with an echo tool through the
// guarded transport (limit: its MaxLineLength, 0 for go-sdk's), writes an
// initialize exchange and lines, and returns the first n lines it writes
// (initialize's answer among them; the guard's refusals and go-sdk's
// answers interleave); it fails when the session ends first.
func guardedAnswers(t *testing.T, limit, n int, lines ...string) []string {
	t.Helper()
	return guardedAnswersAt(t, "2025-11-25", limit, n, lines...)
}

// guardedAnswersAt is guardedAnswers with a session of protocol version.
func guardedAnswersAt(t *testing.T, version string, limit, n int, lines ...string) []string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "guarded", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	Attach(s, wrap.New())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	done := make(chan error, 1)
	g := newGuarded(&mcp.IOTransport{}, inR, outW)
	if limit > 0 {
		g.limit = limit
	}
	go func() { done <- s.Run(ctx, g) }()
	all := append([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}, lines...)
	go func() {
		for _, l := range all {
			if _, err := io.WriteString(inW, l+"\n"); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { _ = inW.Close() })
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	got := make(chan string)
	go func() {
		for sc.Scan() {
			got <- sc.Text()
		}
		close(got)
	}()
	var answers []string
	deadline := time.After(10 * time.Second)
	for len(answers) < n {
		select {
		case a, ok := <-got:
			if !ok {
				t.Fatalf("the session ended after %d answers: %v", len(answers), answers)
			}
			answers = append(answers, a)
		case err := <-done:
			t.Fatalf("the server stopped: %v (answers %v)", err, answers)
		case <-deadline:
			t.Fatalf("answers so far: %v", answers)
		}
	}
	return answers
}

func TestDepthAndID(t *testing.T) {
	for _, c := range []struct {
		in    string
		depth int
		id    string
	}{
		{`{"id":12,"a":[[1]]}`, 3, "12"},
		{`{"a":"[[[[","id":"x\"y"}`, 1, `"x\"y"`},
		{`{"params":{"id":5},"id":-3.5e2}`, 2, "-3.5e2"},
		{`[1,2]`, 1, ""},
	} {
		if d, _ := nesting([]byte(c.in)); d != c.depth {
			t.Errorf("depth(%s) = %d, want %d", c.in, d, c.depth)
		}
		if id, _ := topLevelValue([]byte(c.in), "id"); string(id) != c.id {
			t.Errorf("id(%s) = %q, want %q", c.in, id, c.id)
		}
	}
}

// BenchmarkGuard is what the guard costs a line on its way to go-sdk: one
// scan (its depth; its strings, objects and arrays closed), the look for
// its "jsonrpc" member, and one copy through the pipe.
func BenchmarkGuard(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"v":"` +
			strings.Repeat("x", size) + `"}}}` + "\n")
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			inR, inW := io.Pipe()
			pr, pw := io.Pipe()
			go guard(inR, pw, io.Discard, maxDepth, defaultMaxLine)
			done := make(chan struct{})
			go func() {
				_, _ = io.Copy(io.Discard, pr)
				close(done)
			}()
			b.ResetTimer()
			for range b.N {
				if _, err := inW.Write(line); err != nil {
					b.Fatal(err)
				}
			}
			_ = inW.Close()
			<-done
		})
	}
}

func BenchmarkNesting(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"v":"` +
		strings.Repeat("x", 1<<20) + `","w":[1,2,{"a":"b\"c"}]}}}` + "\n")
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for range b.N {
		if d, closed := nesting(line); d != 5 || !closed {
			b.Fatal(d, closed)
		}
	}
}

func TestNestingSkipsStrings(t *testing.T) {
	for in, want := range map[string]struct {
		most   int
		closed bool
	}{
		`{"a":"[[[\\"}`:            {1, true},
		`{"a":"x\\\"[[[[","b":[]}`: {2, true},
		`["\\\\",[["]"]]]`:         {3, true},
		`{"a":"unclosed [[[[`:      {1, false},
		`"\"`:                      {0, false},
		`{"a":[1]]}`:               {2, false},
		`{"a":[1]`:                 {2, false},
	} {
		if most, closed := nesting([]byte(in)); most != want.most || closed != want.closed {
			t.Errorf("nesting(%s) = %d, %v, want %d, %v", in, most, closed, want.most, want.closed)
		}
	}
}

func TestTransportLeavesOthers(t *testing.T) {
	st, _ := mcp.NewInMemoryTransports()
	var nilStdio *mcp.StdioTransport
	var nilIO *mcp.IOTransport
	for _, tr := range []mcp.Transport{st, nilStdio, nilIO, nil} {
		if got := Transport(tr); got != tr {
			t.Errorf("Transport(%T) = %T, want it unchanged", tr, got)
		}
	}
	if _, ok := Transport(&mcp.LoggingTransport{Transport: &mcp.StdioTransport{}}).(*mcp.LoggingTransport); !ok {
		t.Error("a LoggingTransport is no longer one")
	}
}
