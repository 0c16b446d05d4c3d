package gosdk

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

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
	s := newGuardedSession(t, version, limit)
	go s.send(lines...)
	return s.answers(n)
}

// guardedSession is a session of an attached server with the tools echo
// and hold (which answers once release is closed) through the guarded
// transport.
type guardedSession struct {
	t       *testing.T
	in      io.Writer
	got     chan string
	done    chan error
	release chan struct{}
}

// newGuardedSession starts a session and writes its initialize exchange
// for protocol version (limit: the transport's MaxLineLength, 0 for
// go-sdk's).
func newGuardedSession(t *testing.T, version string, limit int) *guardedSession {
	t.Helper()
	gs := &guardedSession{t: t, got: make(chan string), done: make(chan error, 1), release: make(chan struct{})}
	s := mcp.NewServer(&mcp.Implementation{Name: "guarded", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "hold", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-gs.release
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "held"}}}, nil
		})
	Attach(s, wrap.New())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	g := newGuarded(&mcp.IOTransport{}, inR, outW)
	if limit > 0 {
		g.limit = limit
	}
	go func() { gs.done <- s.Run(ctx, g) }()
	gs.in = inW
	t.Cleanup(func() { _ = inW.Close() })
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			gs.got <- sc.Text()
		}
		close(gs.got)
	}()
	gs.send(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return gs
}

// send writes lines, each with its newline, until one does not go.
func (gs *guardedSession) send(lines ...string) {
	for _, l := range lines {
		if _, err := io.WriteString(gs.in, l+"\n"); err != nil {
			return
		}
	}
}

// answers returns the next n lines the session writes; it fails when the
// session ends first.
func (gs *guardedSession) answers(n int) []string {
	gs.t.Helper()
	var answers []string
	deadline := time.After(10 * time.Second)
	for len(answers) < n {
		select {
		case a, ok := <-gs.got:
			if !ok {
				gs.t.Fatalf("the session ended after %d answers: %v", len(answers), answers)
			}
			answers = append(answers, a)
		case err := <-gs.done:
			gs.t.Fatalf("the server stopped: %v (answers %v)", err, answers)
		case <-deadline:
			gs.t.Fatalf("answers so far: %v", answers)
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
		if d := nesting([]byte(c.in)); d != c.depth {
			t.Errorf("depth(%s) = %d, want %d", c.in, d, c.depth)
		}
		if id, _ := topLevelValue([]byte(c.in), "id"); string(id) != c.id {
			t.Errorf("id(%s) = %q, want %q", c.in, id, c.id)
		}
	}
}

// guardLines are tools/call lines of 1 KiB and 1 MiB of one string, and
// of 1 MiB of small numbers.
func guardLines() map[string][]byte {
	call := func(v string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"v":` + v + `}}}` + "\n")
	}
	return map[string][]byte{
		"string-1KiB":  call(`"` + strings.Repeat("x", 1<<10) + `"`),
		"string-1MiB":  call(`"` + strings.Repeat("x", 1<<20) + `"`),
		"numbers-1MiB": call(`[` + strings.Repeat("12,", 1<<20/3) + `1]`),
	}
}

// BenchmarkGuard is what the guard costs a line; BenchmarkGoSDKRead is
// what go-sdk's own reading of it costs (its decoder), for the ratio.
func BenchmarkGuard(b *testing.B) {
	for name, line := range guardLines() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			inR, inW := io.Pipe()
			pr, pw := io.Pipe()
			go guard(inR, pw, &lockedWriter{w: nopCloser{io.Discard}}, maxDepth, defaultMaxLine)
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

func BenchmarkGoSDKRead(b *testing.B) {
	for name, line := range guardLines() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			for range b.N {
				if _, err := jsonrpc.DecodeMessage(line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkNesting(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"v":"` +
		strings.Repeat("x", 1<<20) + `","w":[1,2,{"a":"b\"c"}]}}}` + "\n")
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for range b.N {
		if d := nesting(line); d != 5 {
			b.Fatal(d)
		}
	}
}

func TestNestingSkipsStrings(t *testing.T) {
	for in, want := range map[string]int{
		`{"a":"[[[\\"}`:            1,
		`{"a":"x\\\"[[[[","b":[]}`: 2,
		`["\\\\",[["]"]]]`:         3,
		`{"a":"unclosed [[[[`:      1,
		`"\"`:                      0,
		`{"a":[1]]}[[[[`:           2, // the scan stops where decoding does
		`{"a":[1]`:                 2,
	} {
		if most := nesting([]byte(in)); most != want {
			t.Errorf("nesting(%s) = %d, want %d", in, most, want)
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

// TestStdioSurvivesMessagesGoSDKCannotDecode: a line whose brackets and
// strings close and whose top level says "jsonrpc":"2.0" can still be no
// message go-sdk's decoder takes (a trailing comma, a number for a method,
// an id that is no string or number, neither method nor id), and go-sdk
// ends the session on it; through the guard it is answered, and the next
// call too. So is a batch, on a session whose protocol has batches, with
// a member that is no message or a request id twice.
func TestStdioSurvivesMessagesGoSDKCannotDecode(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
	for _, c := range []struct{ version, line, want string }{
		{"2025-11-25", `{"jsonrpc":"2.0","id":21,"method":"ping",}`, `{"jsonrpc":"2.0","id":21,"error":{"code":-32700,`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":22,"method":5}`, `{"jsonrpc":"2.0","id":22,"error":{"code":-32600,`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{"2025-11-25", `{"jsonrpc":"2.0"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":23,"error":5}`, `{"jsonrpc":"2.0","id":23,"error":{"code":-32600,`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":24,"method":"ping"}{"jsonrpc":"2.0","id":25,"method":"ping"}`, `{"jsonrpc":"2.0","id":24,"error":{"code":-32700,`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":26,"method":"tools/call","params":{"name":"echo","arguments":{}}}  `, `{"jsonrpc":"2.0","id":26,"result":{"content":[{"type":"text","text":"ok"}]`},
		{"2025-03-26", `[{}]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`},
		{"2025-03-26", `[{"jsonrpc":"2.0","id":31,"method":"ping"},1]`, `{"jsonrpc":"2.0","id":31,"error":{"code":-32600,`},
		{"2025-03-26", `[{"jsonrpc":"2.0","id":32,"method":"ping"},{"jsonrpc":"2.0","id":32,"method":"ping"}]`, `{"jsonrpc":"2.0","id":32,"error":{"code":-32600,`},
	} {
		t.Run(c.line, func(t *testing.T) {
			// The initialize answer, the line's (a batch's: one a request
			// in it), the call's.
			n := 3
			if strings.HasPrefix(c.line, "[") {
				n = 2 + max(1, strings.Count(c.line, `"method"`))
			}
			answers := guardedAnswersAt(t, c.version, 0, n, c.line, call)
			answers = answered(t, answers, c.want)
			answered(t, answers, `"id":12,"result":{"content":[{"type":"text","text":"ok"}]`)
		})
	}
}

// TestStdioBatchNotificationsPass: go-sdk tracks a notification of a batch
// as a request no answer resolves: the batch's answers were never written
// (the client waited for ever), and the session ended on the next batch
// holding a notification, or on one holding two. Through the guard the
// notifications pass on lines of their own and the rest as the batch.
func TestStdioBatchNotificationsPass(t *testing.T) {
	const (
		call  = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{}}}`
		notif = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}}`
	)
	answers := guardedAnswersAt(t, "2025-03-26", 0, 4,
		`[`+fmt.Sprintf(call, 41)+`,`+notif+`]`,
		`[`+notif+`,`+fmt.Sprintf(call, 42)+`]`,
		`[`+notif+`,`+notif+`]`,
		fmt.Sprintf(call, 12))
	for _, want := range []string{`[{"jsonrpc":"2.0","id":41,"result"`, `[{"jsonrpc":"2.0","id":42,"result"`, `{"jsonrpc":"2.0","id":12,"result"`} {
		answers = answered(t, answers, want)
	}
}

// TestStdioBatchReusingAnOpenID: go-sdk ends the session on a batch that
// holds the id of a request of an earlier batch not answered yet; through
// the guard that batch is refused, and once the earlier batch is
// answered the id may be used again.
func TestStdioBatchReusingAnOpenID(t *testing.T) {
	const call = `[{"jsonrpc":"2.0","id":51,"method":"tools/call","params":{"name":"%s","arguments":{}}}]`
	s := newGuardedSession(t, "2025-03-26", 0)
	s.answers(1) // initialize
	s.send(fmt.Sprintf(call, "hold"), fmt.Sprintf(call, "echo"))
	answered(t, s.answers(1), `{"jsonrpc":"2.0","id":51,"error":{"code":-32600,`)
	close(s.release)
	answered(t, s.answers(1), `[{"jsonrpc":"2.0","id":51,"result":{"content":[{"type":"text","text":"held"}]`)
	s.send(fmt.Sprintf(call, "echo"))
	answered(t, s.answers(1), `[{"jsonrpc":"2.0","id":51,"result":{"content":[{"type":"text","text":"ok"}]`)
}

// BenchmarkStdioCall is one tools/call over a stdio session, from its line
// written to its answer read, on go-sdk's IOTransport as it is (bare) and
// through Transport (guarded), the server attached either way: what the
// guard adds to a whole call.
func BenchmarkStdioCall(b *testing.B) {
	for name, line := range guardLines() {
		for _, guarded := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/guarded=%v", name, guarded), func(b *testing.B) {
				s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
				s.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
					func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
					})
				Attach(s, wrap.New())
				inR, inW := io.Pipe()
				outR, outW := io.Pipe()
				var t mcp.Transport = &mcp.IOTransport{Reader: inR, Writer: outW}
				if guarded {
					t = Transport(t)
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				go func() { _ = s.Run(ctx, t) }()
				r := bufio.NewReaderSize(outR, 64<<10)
				call := func(l []byte) {
					if _, err := inW.Write(l); err != nil {
						b.Fatal(err)
					}
					if _, err := r.ReadSlice('\n'); err != nil {
						b.Fatal(err)
					}
				}
				call([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}` + "\n"))
				if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.SetBytes(int64(len(line)))
				b.ResetTimer()
				for range b.N {
					call(line)
				}
				b.StopTimer()
				_ = inW.Close()
			})
		}
	}
}

// goSDKReads reports whether go-sdk's stream transport reads the line b
// without ending the session, as its ioConn does: its decoder reads JSON
// values, each followed by its newline or nothing, then each value is
// read as a message, or a batch of them with no id twice (readBatch and
// Read; a notification's id is the zero ID, so two notifications count
// as an id twice).
func goSDKReads(b []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			return true
		} else if err != nil {
			return false
		}
		var tr [1]byte
		if n, _ := dec.Buffered().Read(tr[:]); n > 0 && tr[0] != '\n' && tr[0] != '\r' {
			return false
		}
		var members []json.RawMessage
		d := segjson.NewDecoder(bytes.NewReader(raw))
		d.DontMatchCaseInsensitiveStructFields()
		if d.Decode(&members) != nil {
			if _, err := jsonrpc.DecodeMessage(raw); err != nil {
				return false
			}
			continue
		}
		if len(members) == 0 {
			return false
		}
		seen := map[jsonrpc.ID]bool{}
		for _, m := range members {
			msg, err := jsonrpc.DecodeMessage(m)
			if err != nil {
				return false
			}
			if r, ok := msg.(*jsonrpc.Request); ok {
				if seen[r.ID] {
					return false
				}
				seen[r.ID] = true
			}
		}
	}
}

// guarded is what the guard does with line on a session whose protocol
// has batches: what it passes to go-sdk, and what it answers.
func guarded(line []byte) (passed, answered []byte) {
	var p, a bytes.Buffer
	g := lineGuard{pw: &p, w: &lockedWriter{w: nopCloser{&a}}, maxNest: maxDepth, limit: defaultMaxLine}
	g.pass(line, false)
	return p.Bytes(), a.Bytes()
}

// FuzzGuardPassesWhatGoSDKReads: go-sdk reads whatever the guard passes
// without ending the session, and a line go-sdk reads is passed, not
// answered, unless it is a batch holding a notification, which the guard
// passes rewritten (TestStdioBatchNotificationsPass).
func FuzzGuardPassesWhatGoSDKReads(f *testing.F) {
	for _, s := range guardSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if bytes.IndexByte([]byte(line), '\n') >= 0 {
			return // the guard gets lines
		}
		b := []byte(line + "\n")
		passed, answered := guarded(b)
		if !goSDKReads(passed) {
			t.Fatalf("go-sdk ends the session on what the guard passed for %q: %q", line, passed)
		}
		if goSDKReads(b) && len(answered) > 0 {
			t.Fatalf("go-sdk reads %q, yet the guard answered %q", line, answered)
		}
		if len(passed) == 0 && len(answered) == 0 && len(bytes.TrimSpace(b)) > 0 {
			t.Fatalf("%q was neither passed nor answered", line)
		}
	})
}

var guardSeeds = []string{
	``, `   `, `{}`, `[]`, `[ ]`, `123`, `"x"`, `null`, `{not json`, `[{}]`, `[1]`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"}  `,
	` {"jsonrpc":"2.0","id":"a","method":"ping","params":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping",}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"} }`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"} x`,
	`{"jsonrpc":"2.0","id":22,"method":5}`,
	`{"jsonrpc":"2.0","id":true,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","method":null,"id":3}`,
	`{"jsonrpc":"2.0"}`,
	`{"jsonrpc":"2.0","id":null}`,
	`{"jsonrpc":"2.0","id":23,"error":5}`,
	`{"jsonrpc":"2.0","id":23,"error":{"code":1.5,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":23,"result":{"a":[1,2]}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","jsonrpc":"1.0"}`,
	`{"Jsonrpc":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","ID":1,"Method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"\q"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"` + "\xff" + `"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"` + "\x01" + `"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"\ud800"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":01}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":1e400}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":1,"a":2}}`,
	`{"jsonrpc":"2\u002e0","id":1,"method":"ini\u0074ialize","params":{}}`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":1.0,"method":"ping"}]`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"1","method":"ping"}]`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"}]`,
	`[{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","method":"notifications/y"}]`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"},1]`,
	`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":1,"result":{}}]`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"}] `,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"}]]`,
	`[{"jsonrpc":"2.0","id":1,"method":"ping"},]`,
}

// TestGoSDKReadsAsModelled checks goSDKReads against go-sdk itself: for
// each seed, a bare session (no guard; protocol 2025-03-26, which has
// batches) is sent the seed, then a ping; the ping is answered when
// goSDKReads says the session survives, and the session ends otherwise.
func TestGoSDKReadsAsModelled(t *testing.T) {
	for _, seed := range guardSeeds {
		s := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1.0.0"}, nil)
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			_ = s.Run(ctx, &mcp.IOTransport{Reader: inR, Writer: outW})
			_ = outW.Close()
			close(done)
		}()
		go func() {
			for _, l := range []string{
				`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`, seed, `{"jsonrpc":"2.0","id":"probe","method":"ping"}`,
			} {
				if _, err := io.WriteString(inW, l+"\n"); err != nil {
					return
				}
			}
		}()
		survived := make(chan bool, 1)
		go func() {
			sc := bufio.NewScanner(outR)
			for sc.Scan() {
				if strings.Contains(sc.Text(), `"id":"probe"`) {
					survived <- true
					return
				}
			}
			survived <- false
		}()
		select {
		case got := <-survived:
			if want := goSDKReads([]byte(seed + "\n")); got != want {
				t.Errorf("%q: the session survived: %v; goSDKReads: %v", seed, got, want)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%q: no answer to the ping, and the session did not end", seed)
		}
		cancel()
		_ = inW.Close()
		_ = outR.Close() // go-sdk may still write an answer
		<-done
	}
}
