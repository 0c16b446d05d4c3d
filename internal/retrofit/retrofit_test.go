package retrofit_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/retrofit"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// expect says what the model must still learn from the wrapped answer.
type expect int

const (
	// same: a success or a handler-set isError, byte-identical.
	same expect = iota
	// argument: mcp-go's own argument error, a -32603 when bare; wrapped it
	// is an invalid_argument result carrying the same text.
	argument
	// masked: an internal failure (a panic); bare leaks it or drops the
	// connection, wrapped answers internal with a call id.
	masked
	// scrubbed: a plain error holding a DSN; bare leaks it, wrapped reads
	// the same words with the password and the host replaced.
	scrubbed
	// classified: a standard error errs knows (a missing file); wrapped
	// names the kind with its code.
	classified
	// protocol: mcp-go answers before any middleware; the same JSON-RPC
	// error either way.
	protocol
)

type call struct {
	name   string
	tool   string
	args   any // a map, or raw JSON text for arguments mcp-go binds oddly
	expect expect
	// text must appear in the wrapped answer (and, for argument, in the
	// bare one: the information existed before the retrofit).
	text string
	code string
}

var calls = []call{
	{"read ok", "read_file", map[string]any{"path": "notes.txt"}, same, "", ""},
	{"read missing path", "read_file", map[string]any{}, argument, `required argument "path" not found`, "invalid_argument"},
	{"read path not a string", "read_file", map[string]any{"path": 7}, argument, `argument "path" is not a string`, "invalid_argument"},
	{"read missing file", "read_file", map[string]any{"path": "nope.txt"}, classified, "not found", "not_found"},
	{"write ok", "write_file", map[string]any{"path": "out.txt", "content": "hi"}, same, "", ""},
	{"write content missing", "write_file", map[string]any{"path": "out.txt"}, argument, `required argument "content" not found`, "invalid_argument"},
	{"read_many not a slice", "read_many", map[string]any{"paths": "notes.txt"}, argument, `argument "paths" is not a string slice`, "invalid_argument"},
	{"read_many bad item", "read_many", map[string]any{"paths": []any{"notes.txt", 3}}, argument, `item 1 in argument "paths" is not a string`, "invalid_argument"},
	{"read_many ok", "read_many", map[string]any{"paths": []any{"notes.txt"}}, same, "", ""},
	{"set_readonly not a bool", "set_readonly", map[string]any{"on": "yes"}, argument, `argument "on" cannot be converted to bool`, "invalid_argument"},
	{"scale not a number", "scale", map[string]any{"factor": "big"}, argument, `argument "factor" cannot be converted to float64`, "invalid_argument"},
	{"scale ok", "scale", map[string]any{"factor": 2.5}, same, "", ""},
	{"create_user wrong type", "create_user", map[string]any{"name": "ann", "age": "old"}, argument, "age", "invalid_argument"},
	{"create_user ok", "create_user", map[string]any{"name": "ann", "age": 30}, same, "", ""},
	{"typed_user wrong type", "typed_user", map[string]any{"name": "ann", "age": "old"}, argument, "age", "invalid_argument"},
	{"query_db leaks a DSN", "query_db", map[string]any{"sql": "select 1"}, scrubbed, `pq: password authentication failed for user "app" (postgres://[host]/app) (call id `, "internal"},
	{"head panics in a helper", "head", map[string]any{"path": "notes.txt", "lines": 99}, masked, "internal error in tool \"head\" (call id", "internal"},
	{"summarize nil map", "summarize", map[string]any{"path": "notes.txt"}, masked, "internal error in tool \"summarize\" (call id", "internal"},
	{"list_dir", "list_dir", nil, same, "", ""},
	{"unknown tool", "no_such_tool", map[string]any{}, protocol, "", ""},
}

// answer is what the model received, normalised for comparison.
type answer struct {
	result  *mcp.CallToolResult
	raw     string // the result as JSON
	rpcErr  string // JSON-RPC or transport error text
	dropped bool
}

func (a answer) text() string {
	if a.result == nil {
		return a.rpcErr
	}
	var parts []string
	for _, c := range a.result.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, " ")
}

type side struct {
	call  func(ctx context.Context, tool string, args any) answer
	close func()
}

// fixture builds the server the way its author would, plus the retrofit
// when wrapped: observe's server options and wrap.Middleware, first.
func fixture(t *testing.T, root string, wrapped bool, logs *logbuf.Buffer, spans *tracetest.SpanRecorder) *server.MCPServer {
	t.Helper()
	var opts []server.ServerOption
	if wrapped {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
		t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
		ob := obs.New(obs.WithLogger(logs.Logger()), obs.WithTracerProvider(tp), obs.WithoutMetrics())
		opts = []server.ServerOption{attached(wrap.New(obstest.WithObserver(ob), wrap.WithTimeout(5*time.Second)))}
	}
	s := server.NewMCPServer("files", "1.0.0", opts...)
	retrofit.AddTools(s, root)
	return s
}

func request(tool string, args any) mcp.CallToolRequest {
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	return req
}

func toAnswer(res *mcp.CallToolResult, err error) answer {
	if err != nil {
		msg := err.Error()
		return answer{rpcErr: msg, dropped: strings.Contains(msg, "EOF") || errors.Is(err, io.EOF)}
	}
	b, _ := json.Marshal(res)
	return answer{result: res, raw: string(b)}
}

func overHTTP(t *testing.T, s *server.MCPServer) side {
	conn := testserver.StartHTTP(t, s)
	return side{
		call: func(ctx context.Context, tool string, args any) answer {
			return toAnswer(conn.Client.CallTool(ctx, request(tool, args)))
		},
		close: conn.Close,
	}
}

// overStdio runs mcp-go's stdio server and stdio client over OS pipes.
func overStdio(t *testing.T, s *server.MCPServer) side {
	cl := testserver.StartStdio(t, s)
	return side{
		call: func(ctx context.Context, tool string, args any) answer {
			return toAnswer(cl.CallTool(ctx, request(tool, args)))
		},
		close: func() {},
	}
}

// TestRetrofitNeverWorse serves the fixture bare and retrofitted over
// streamable HTTP and stdio with a real client, makes the same calls on
// both, and fails if any wrapped answer tells the model less than the bare
// one did, changes a success, or leaves a request without exactly one log
// line and one span.
func TestRetrofitNeverWorse(t *testing.T) {
	for _, tr := range []struct {
		name  string
		serve func(*testing.T, *server.MCPServer) side
	}{{"http", overHTTP}, {"stdio", overStdio}} {
		t.Run(tr.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("one\ntwo\nthree\nfour"), 0o600); err != nil {
				t.Fatal(err)
			}
			var logs logbuf.Buffer
			spans := tracetest.NewSpanRecorder()
			bare := tr.serve(t, fixture(t, root, false, nil, nil))
			defer bare.close()
			wrapped := tr.serve(t, fixture(t, root, true, &logs, spans))
			defer wrapped.close()

			for _, c := range calls {
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				b := bare.call(ctx, c.tool, c.args)
				w := wrapped.call(ctx, c.tool, c.args)
				cancel()
				t.Run(c.name, func(t *testing.T) { compare(t, c, b, w) })
			}

			lines, err := logs.Lines()
			if err != nil {
				t.Fatal(err)
			}
			perTool := map[string]int{}
			for _, l := range lines {
				if tool, _ := l["tool"].(string); tool != "" {
					perTool[tool]++
				}
			}
			spanPerTool := map[string]int{}
			for _, s := range spans.Ended() {
				if strings.HasPrefix(s.Name(), "tools/call ") {
					spanPerTool[strings.TrimPrefix(s.Name(), "tools/call ")]++
				}
			}
			want := map[string]int{}
			for _, c := range calls {
				want[c.tool]++
			}
			for tool, n := range want {
				if perTool[tool] != n {
					t.Errorf("tool %s: %d log lines for %d requests", tool, perTool[tool], n)
				}
				if spanPerTool[tool] != n {
					t.Errorf("tool %s: %d spans for %d requests", tool, spanPerTool[tool], n)
				}
			}
			if t.Failed() {
				t.Logf("log:\n%s", logs.String())
			}
		})
	}
}

func compare(t *testing.T, c call, bare, wrapped answer) {
	t.Helper()
	switch c.expect {
	case same:
		if bare.raw == "" || bare.raw != wrapped.raw {
			t.Errorf("answer changed:\n bare:    %s %s\n wrapped: %s %s", bare.raw, bare.rpcErr, wrapped.raw, wrapped.rpcErr)
		}
		return
	case protocol:
		if bare.rpcErr == "" || bare.rpcErr != wrapped.rpcErr {
			t.Errorf("protocol error changed: bare %q, wrapped %q", bare.rpcErr, wrapped.rpcErr)
		}
		return
	case argument:
		if !strings.Contains(bare.text(), c.text) {
			t.Errorf("fixture: the bare answer %q lacks %q", bare.text(), c.text)
		}
	}
	if wrapped.result == nil || !wrapped.result.IsError {
		t.Fatalf("wrapped answer is not an isError result: %+v", wrapped)
	}
	if !strings.Contains(wrapped.text(), c.text) {
		t.Errorf("wrapped answer %q lacks %q (bare said %q)", wrapped.text(), c.text, bare.text())
	}
	info, ok := mcpgo.InfoOf(wrapped.result)
	if ok != (c.code != "") || info.Code != c.code {
		t.Errorf("wrapped code = %q, want %q", info.Code, c.code)
	}
	if c.expect == argument && len(info.Violations) == 0 {
		t.Errorf("argument error without a violation naming the parameter: %+v", info)
	}
	for _, secret := range []string{"hunter2", "10.0.0.5", os.TempDir()} {
		if strings.Contains(wrapped.text(), secret) || strings.Contains(wrapped.raw, secret) {
			t.Errorf("wrapped answer leaks %q: %s", secret, wrapped.raw)
		}
	}
}
