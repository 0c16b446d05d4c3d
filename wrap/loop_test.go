package wrap_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestLoopGuard: the guard refuses exactly the fourth identical failing
// call, without running the handler, and never a changed call; a success
// starts the count again; a rate limit's retry-after is honoured. The
// refusal's log line and span say so.
func TestLoopGuard(t *testing.T) {
	var runs int
	var logs logbuf.Buffer
	spans := tracetest.NewSpanRecorder()
	s := server.NewMCPServer("files", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithLoopGuard(wrap.LoopGuard{}),
		wrap.WithTelemetry(observe.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))))))
	s.AddTool(mcp.NewTool("read"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs++
		switch p := req.GetString("path", ""); p {
		case "ok.md":
			return mcp.NewToolResultText("fine"), nil
		case "busy.md":
			return nil, errs.New(errs.RateLimited, "quota reached", errs.RetryAfter(time.Hour))
		default:
			return nil, errs.Newf(errs.NotFound, "no note named %s", p)
		}
	})
	// A credential names the caller: mcp-go's HTTP at the newest protocol
	// versions has no sessions.
	srv := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(srv.Close)
	conn := statelessClient(t, srv.URL, "token")
	call := func(args string) (*mcp.CallToolResult, int) {
		before := runs
		res := callRaw(t, conn, "read", args)
		return res, runs - before
	}
	for i := 1; i <= 3; i++ {
		// Key order and white space do not make a call different.
		args := `{"path":"gone.md","n":1}`
		if i == 2 {
			args = `{ "n": 1, "path": "gone.md" }`
		}
		if res, ran := call(args); ran != 1 || !strings.Contains(firstText(res), "no note named gone.md") {
			t.Fatalf("failure %d: ran %d, %q", i, ran, firstText(res))
		}
	}
	res, ran := call(`{"path":"gone.md","n":1}`)
	if ran != 0 || !res.IsError || !strings.Contains(firstText(res), "failed 3 times") || !strings.Contains(firstText(res), "no note named gone.md") {
		t.Fatalf("the fourth identical call: ran %d, %q", ran, firstText(res))
	}
	if _, ran := call(`{"path":"gone.md","n":2}`); ran != 1 {
		t.Fatal("a changed call was refused")
	}
	if _, ran := call(`{"path":"ok.md"}`); ran != 1 {
		t.Fatal("a different call was refused")
	}
	lines, _ := logs.Find("outcome", "repeated_failure")
	if len(lines) != 1 {
		t.Fatalf("want one repeated_failure line, got %v", lines)
	}
	marked := 0
	for _, sp := range spans.Ended() {
		for _, e := range sp.Events() {
			if e.Name == "mcpwrap.repeated_failure" {
				marked++
			}
		}
	}
	if marked != 1 {
		t.Fatalf("%d spans carry the mcpwrap.repeated_failure event, want 1", marked)
	}
	for range 3 {
		call(`{"path":"busy.md"}`)
	}
	res, ran = call(`{"path":"busy.md"}`)
	if info, _ := mcpgo.InfoOf(res); ran != 0 || info.RetryAfterSeconds < 3500 || !strings.Contains(firstText(res), "or wait") {
		t.Fatalf("a rate-limited repeat: ran %d, %+v", ran, info)
	}
}

// TestLoopGuardMemoryIsBounded: 100 000 sessions each failing a distinct
// call keep at most MaxCalls entries, in a bounded number of bytes.
func TestLoopGuardMemoryIsBounded(t *testing.T) {
	w := wrap.New(wrap.WithLoopGuard(wrap.LoopGuard{}))
	fail := func(context.Context, *call.Request) (call.Result, error) {
		return nil, errs.New(errs.InvalidArgument, "bad")
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ctx := context.Background()
	for i := range 100_000 {
		req := &call.Request{Kind: call.Tool, Name: "t", Session: "s" + strconv.Itoa(i), Args: map[string]any{"i": i}}
		if a := adapter.Chain(w)(ctx, req, fail); a.Error == nil {
			t.Fatal("no error result")
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(w)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if grown > 8<<20 {
		t.Fatalf("the guard holds %d bytes after 100 000 sessions, want at most 8 MiB (10 000 entries)", grown)
	}
	t.Logf("heap grew %d bytes for 10 000 tracked calls (%d bytes each)", grown, grown/10_000)
}

// statelessClient connects a real mcp-go client to url, sending token as a
// bearer credential unless it is empty.
func statelessClient(t *testing.T, url, token string) *client.Client {
	t.Helper()
	var opts []transport.StreamableHTTPCOption
	if token != "" {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	}
	tr, err := transport.NewStreamableHTTP(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "stateless-" + token, Version: "0"}}}); err != nil {
		t.Fatal(err)
	}
	return c
}

func callRead(t *testing.T, c *client.Client, path string) *mcp.CallToolResult {
	t.Helper()
	return callRaw(t, c, "read", `{"path":`+strconv.Quote(path)+`}`)
}

// callRaw calls a tool with arguments given as exact JSON text.
func callRaw(t *testing.T, c *client.Client, tool, args string) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.RawArguments = json.RawMessage(args)
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestLoopGuardStatelessDoesNotMixClients: over mcp-go's stateless
// streamable HTTP there is no session. One client's three identical
// failing calls made the guard refuse another client's first identical
// call. Now the guard keys on the credential: alice is refused her fourth
// call, bob's first runs; and callers without any credential are not
// guarded at all, which the first such call logs once.
func TestLoopGuardStatelessDoesNotMixClients(t *testing.T) {
	var runs atomic.Int64
	var logs logbuf.Buffer
	s := server.NewMCPServer("files", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithLoopGuard(wrap.LoopGuard{})))
	s.AddTool(mcp.NewTool("read", mcp.WithString("path")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return nil, errs.Newf(errs.NotFound, "no note named %s", req.GetString("path", ""))
	})
	srv := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithStateLess(true)))
	t.Cleanup(srv.Close)

	alice, bob := statelessClient(t, srv.URL, "alice"), statelessClient(t, srv.URL, "bob")
	for range 3 {
		callRead(t, alice, "gone.md")
	}
	before := runs.Load()
	res := callRead(t, alice, "gone.md")
	if runs.Load() != before || !strings.Contains(firstText(res), "failed 3 times") {
		t.Fatalf("alice's fourth identical call ran (%d runs) or was not refused: %q", runs.Load()-before, firstText(res))
	}
	checkOneSentence(t, firstText(res))
	before = runs.Load()
	res = callRead(t, bob, "gone.md")
	if runs.Load() != before+1 || strings.Contains(firstText(res), "failed 3 times") {
		t.Fatalf("bob's first call was refused because of alice's failures: %q", firstText(res))
	}

	anon1, anon2 := statelessClient(t, srv.URL, ""), statelessClient(t, srv.URL, "")
	for range 4 {
		callRead(t, anon1, "gone.md")
	}
	before = runs.Load()
	for _, c := range []*client.Client{anon1, anon2} {
		if res := callRead(t, c, "gone.md"); strings.Contains(firstText(res), "failed 3 times") {
			t.Fatalf("a call without session or credential was refused: %q", firstText(res))
		}
	}
	if runs.Load() != before+2 {
		t.Fatalf("%d of 2 calls without a credential ran", runs.Load()-before)
	}
	if n := strings.Count(logs.String(), "loop guard: calls without a session or credential are not guarded"); n != 1 {
		t.Fatalf("want the unguarded calls said once, got %d lines:\n%s", n, logs.String())
	}
}

// checkOneSentence fails when a refusal joins its clauses as ".;" or
// ". (" (it read "…use another tool.; the request did not reach…").
func checkOneSentence(t *testing.T, msg string) {
	t.Helper()
	for _, bad := range []string{".;", ". ;", ". (", ".."} {
		if strings.Contains(msg, bad) {
			t.Errorf("the refusal contains %q: %q", bad, msg)
		}
	}
	if !strings.Contains(msg, "use another tool; the request did not reach the upstream") {
		t.Errorf("the refusal does not read as one sentence: %q", msg)
	}
}
