package gosdk

import (
	"bufio"
	"context"
	"encoding/json"
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
	s := mcp.NewServer(&mcp.Implementation{Name: "deep", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	Attach(s, wrap.New())
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	g := newGuarded(&mcp.IOTransport{}, inR, outW)
	g.limit = 64 << 10
	go func() { done <- s.Run(ctx, g) }()

	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"deep-7","method":"tools/call","params":{"name":"echo","arguments":{"v":` + deep + `}}}`,
		`{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"echo","arguments":{"v":"` + strings.Repeat("x", 1<<20) + `"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
	}
	go func() {
		for _, l := range lines {
			if _, err := io.WriteString(inW, l+"\n"); err != nil {
				return
			}
		}
	}()
	answers := map[string]json.RawMessage{}
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	deadline := time.After(10 * time.Second)
	got := make(chan map[string]any)
	go func() {
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				got <- m
			}
		}
		close(got)
	}()
	for len(answers) < 4 {
		select {
		case m, ok := <-got:
			if !ok {
				t.Fatalf("the session ended after %d answers: %v", len(answers), answers)
			}
			id, _ := json.Marshal(m["id"])
			b, _ := json.Marshal(m)
			answers[string(id)] = b
		case err := <-done:
			t.Fatalf("the server stopped: %v", err)
		case <-deadline:
			t.Fatalf("answers so far: %v", answers)
		}
	}
	if a := string(answers[`"deep-7"`]); !strings.Contains(a, `"code":-32600`) || !strings.Contains(a, "nested deeper than") {
		t.Fatalf("the deep call: %s", a)
	}
	if a := string(answers[`"long"`]); !strings.Contains(a, `"code":-32600`) || !strings.Contains(a, "longer than 65536 bytes") {
		t.Fatalf("the long call: %s", a)
	}
	if a := string(answers["3"]); !strings.Contains(a, `"text":"ok"`) {
		t.Fatalf("the call after it: %s", a)
	}
	_ = inW.Close()
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
		if d := depth([]byte(c.in)); d != c.depth {
			t.Errorf("depth(%s) = %d, want %d", c.in, d, c.depth)
		}
		if id := string(topLevelID([]byte(c.in))); id != c.id {
			t.Errorf("id(%s) = %q, want %q", c.in, id, c.id)
		}
	}
}

// BenchmarkGuard is what the guard costs a line on its way to go-sdk: one
// scan for its depth and one copy through the pipe.
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

func BenchmarkDepth(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"v":"` +
		strings.Repeat("x", 1<<20) + `","w":[1,2,{"a":"b\"c"}]}}}` + "\n")
	b.ReportAllocs()
	b.SetBytes(int64(len(line)))
	for range b.N {
		if depth(line) != 5 {
			b.Fatal(depth(line))
		}
	}
}

func TestDepthSkipsStrings(t *testing.T) {
	for in, want := range map[string]int{
		`{"a":"[[[\\"}`:            1,
		`{"a":"x\\\"[[[[","b":[]}`: 2,
		`["\\\\",[["]"]]]`:         3,
		`{"a":"unclosed [[[[`:      1,
		`"\"`:                      0,
	} {
		if got := depth([]byte(in)); got != want {
			t.Errorf("depth(%s) = %d, want %d", in, got, want)
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
