package wrap_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/mcptest"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/redact"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

const secret = "hunter2-s3cr3t"

// refused returns a real "connection refused" error from dialling a port
// that was just closed.
func refused(t testing.TB) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	_, err = net.Dial("tcp", addr)
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("expected a refused dial, got %v", err)
	}
	return err
}

// fixture is a set of tools covering every case the chain must handle.
type fixture struct {
	release   chan struct{} // lets the ignoring slow tool finish
	sawCancel chan struct{} // closed when the cooperative slow tool sees ctx.Done
	dialErr   error
}

func newFixture(t testing.TB) *fixture {
	return &fixture{release: make(chan struct{}), sawCancel: make(chan struct{}, 16), dialErr: refused(t)}
}

func tool(name string) mcp.Tool { return mcp.NewTool(name) }

func (f *fixture) tools() []server.ServerTool {
	text := func(s string) server.ToolHandlerFunc {
		return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(s), nil
		}
	}
	fail := func(err error) server.ToolHandlerFunc {
		return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, err }
	}
	return []server.ServerTool{
		{Tool: tool("ok"), Handler: text("sunny, 21°C")},
		{Tool: tool("plain_error"), Handler: fail(fmt.Errorf("query failed: password=%s host=10.0.0.5", secret))},
		{Tool: tool("refused"), Handler: fail(fmt.Errorf("fetch forecast: %w", f.dialErr))},
		{Tool: tool("invalid"), Handler: fail(errs.New(errs.InvalidArgument, `parameter "days" must be between 1 and 14, got 30`))},
		{Tool: tool("not_found"), Handler: fail(errs.Newf(errs.NotFound, "no city named %q", "Atlantis"))},
		{Tool: tool("rate_limited"), Handler: fail(errs.New(errs.RateLimited, "weather-api rate limit reached", errs.RetryAfter(2*time.Second)))},
		{Tool: tool("fatal"), Handler: fail(errs.Wrap(errs.Fatal, errors.New("config "+secret+" corrupt"), "config corrupt"))},
		{Tool: tool("panics"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			panic("boom " + secret)
		}},
		{Tool: tool("nil_result"), Handler: fail(nil)},
		{Tool: tool("tool_error"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("city not covered by this provider"), nil
		}},
		{Tool: tool("protocol"), Handler: fail(wrap.ProtocolError(errors.New("session state lost")))},
		{Tool: tool("slow_ignores_ctx"), Handler: func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-f.release
			return mcp.NewToolResultText("too late"), nil
		}},
		{Tool: tool("slow_cooperative"), Handler: func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			f.sawCancel <- struct{}{}
			return nil, ctx.Err()
		}},
		{Tool: tool("needs_input"), Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.RequestState == "" {
				return server.NewInputRequestBuilder("asked").
					Elicit("unit", mcp.ElicitationParams{Message: "Celsius or Fahrenheit?", RequestedSchema: map[string]any{"type": "object"}}).
					ToolResult(), nil
			}
			return mcp.NewToolResultText("answered after input"), nil
		}},
	}
}

// elicitAccept answers every elicitation.
type elicitAccept struct{}

func (elicitAccept) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"unit": "C"}}}, nil
}

type want struct {
	isError   bool
	code      string // errs code in structuredContent, "" for none
	text      string // substring of the text the model reads
	outcome   string // the log line's outcome
	retryable bool
}

var cases = []struct {
	tool string
	want want
}{
	{"ok", want{text: "sunny", outcome: "success"}},
	// Bare mcp-go sends the text with the password and the address in it.
	{"plain_error", want{isError: true, text: "query failed: password=[REDACTED] host=[host] (call id ", code: "internal", outcome: "tool_error"}},
	{"refused", want{isError: true, code: "unavailable", text: "refused the connection; retrying later may help", outcome: "unavailable", retryable: true}},
	{"invalid", want{isError: true, code: "invalid_argument", text: `invalid arguments for tool "invalid": parameter "days" must be between 1 and 14, got 30`, outcome: "invalid_argument"}},
	{"not_found", want{isError: true, code: "not_found", text: `no city named "Atlantis"`, outcome: "not_found"}},
	{"rate_limited", want{isError: true, code: "rate_limited", text: "rate limit reached; retry after 2s", outcome: "rate_limited", retryable: true}},
	{"fatal", want{isError: true, code: "fatal", text: "fatal error", outcome: "fatal"}},
	{"panics", want{isError: true, code: "internal", text: "internal error in tool \"panics\" (call id ", outcome: "panic"}},
	{"nil_result", want{isError: true, code: "internal", text: "internal error", outcome: "internal"}},
	{"tool_error", want{isError: true, text: "city not covered by this provider", outcome: "tool_error"}},
	{"slow_ignores_ctx", want{isError: true, code: "timeout", text: `tool "slow_ignores_ctx" timed out after 200ms; the operation may still complete upstream`, outcome: "timeout", retryable: false}},
	{"slow_cooperative", want{isError: true, code: "timeout", text: `tool "slow_cooperative" timed out after 200ms`, outcome: "timeout", retryable: false}},
	{"needs_input", want{text: "answered after input", outcome: "success"}},
}

func check(t *testing.T, res *mcp.CallToolResult, err error, w want) {
	t.Helper()
	if err != nil {
		t.Fatalf("CallTool returned a protocol or transport error: %v", err)
	}
	if res.IsError != w.isError {
		t.Fatalf("isError = %v, want %v (%+v)", res.IsError, w.isError, res.Content)
	}
	contents := res.Content
	if w.isError && w.code == "" && len(contents) == 2 {
		// An error result the handler built: its text, then the call id.
		if id, _ := contents[1].(mcp.TextContent); !strings.HasPrefix(id.Text, "(call id ") {
			t.Fatalf("the last content is %+v, want the call id", contents[1])
		}
		contents = contents[:1]
	}
	if len(contents) != 1 {
		t.Fatalf("want exactly one content, got %d", len(contents))
	}
	text := contents[0].(mcp.TextContent).Text
	if !strings.Contains(text, w.text) {
		t.Fatalf("text %q does not contain %q", text, w.text)
	}
	if strings.Contains(text, secret) {
		t.Fatalf("secret leaked to the model: %q", text)
	}
	info, ok := mcpgo.InfoOf(res)
	if w.code == "" {
		if ok {
			t.Fatalf("unexpected error info %+v", info)
		}
		return
	}
	if !ok {
		t.Fatalf("no structured error info in %+v", res.StructuredContent)
	}
	if info.Code != w.code || info.Retryable != w.retryable || info.Message != text || info.CallID == "" {
		t.Fatalf("info = %+v, want code %s retryable %v, message = text, a call id", info, w.code, w.retryable)
	}
}

func newServer(logs *logbuf.Buffer, opts ...server.ServerOption) *server.MCPServer {
	return server.NewMCPServer("test", "1.0.0", append([]server.ServerOption{
		attached(wrap.New(
			wrap.WithLogger(logs.Logger()),
			wrap.ForTool("slow_ignores_ctx", wrap.WithTimeout(200*time.Millisecond)),
			wrap.ForTool("slow_cooperative", wrap.WithTimeout(200*time.Millisecond)),
		)),
	}, opts...)...)
}

// serveFixture serves the fixture's tools on newServer, logging to logs,
// to a client made with opts; the hanging tools are released when the
// test ends, before the server stops.
func serveFixture(t *testing.T, logs *logbuf.Buffer, opts ...client.ClientOption) (*fixture, *testserver.Conn) {
	t.Helper()
	f := newFixture(t)
	s := newServer(logs)
	s.AddTools(f.tools()...)
	conn := testserver.StartHTTP(t, s, opts...)
	t.Cleanup(func() { close(f.release) })
	return f, conn
}

func TestMiddlewareOverStreamableHTTP(t *testing.T) {
	var logs logbuf.Buffer
	f, conn := serveFixture(t, &logs, client.WithElicitationHandler(elicitAccept{}))

	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			res, err := conn.Call(t.Context(), tc.tool, nil)
			check(t, res, err, tc.want)
			lines, lerr := callLines(&logs, tc.tool)
			if lerr != nil {
				t.Fatal(lerr)
			}
			if len(lines) == 0 {
				t.Fatalf("no log line for %s", tc.tool)
			}
			last := lines[len(lines)-1]
			if last["outcome"] != tc.want.outcome {
				t.Fatalf("log outcome = %v, want %s: %v", last["outcome"], tc.want.outcome, last)
			}
			if info, ok := mcpgo.InfoOf(res); ok && last["call_id"] != info.CallID {
				t.Fatalf("log call_id %v != result call id %s", last["call_id"], info.CallID)
			}
		})
	}

	t.Run("protocol error escape hatch", func(t *testing.T) {
		conn.Wire.Reset()
		_, err := conn.Call(t.Context(), "protocol", nil)
		if err == nil || !strings.Contains(err.Error(), "session state lost") {
			t.Fatalf("want a JSON-RPC error carrying the message, got %v", err)
		}
		if got := conn.Wire.JSONRPCErrors(); len(got) != 1 || !strings.Contains(string(got[0]), "-32603") {
			t.Fatalf("want one -32603 on the wire, got %s", got)
		}
	})

	t.Run("no JSON-RPC error on the wire", func(t *testing.T) {
		conn.Wire.Reset()
		for _, tc := range cases {
			if _, err := conn.Call(t.Context(), tc.tool, nil); err != nil {
				t.Fatalf("%s: %v", tc.tool, err)
			}
		}
		if errs := conn.Wire.JSONRPCErrors(); len(errs) != 0 {
			t.Fatalf("JSON-RPC errors on the wire: %s", errs)
		}
		for _, r := range conn.Wire.Responses() {
			if r.ReadErr != nil {
				t.Fatalf("a response body broke off: %v", r.ReadErr)
			}
		}
	})

	t.Run("operator log has what the model does not", func(t *testing.T) {
		lines, err := callLines(&logs, "panics")
		if err != nil || len(lines) == 0 {
			t.Fatalf("no panic log line: %v", err)
		}
		if cause, _ := lines[0]["cause"].(string); !strings.Contains(cause, "boom "+secret) {
			t.Fatalf("panic value missing from log: %v", lines[0])
		}
		if stack, _ := lines[0]["stack"].(string); !strings.Contains(stack, "wrap_test.go") {
			t.Fatalf("stack missing or not pointing at the handler: %v", lines[0]["stack"])
		}
		plain, _ := callLines(&logs, "plain_error")
		if cause, _ := plain[0]["cause"].(string); !strings.Contains(cause, "password="+redact.Redacted) {
			t.Fatalf("cause missing from log: %v", plain[0])
		}
		if lvl := plain[0]["level"]; lvl != "ERROR" {
			t.Fatalf("internal errors log at ERROR, got %v", lvl)
		}
	})

	t.Run("timeout cancels the handler's context", func(t *testing.T) {
		select {
		case <-f.sawCancel:
		case <-time.After(5 * time.Second):
			t.Fatal("cooperative handler never saw its context cancelled")
		}
	})
}

// callLines returns the per-call log lines of one tool.
func callLines(logs *logbuf.Buffer, tool string) ([]map[string]any, error) {
	lines, err := logs.Find("tool", tool)
	var out []map[string]any
	for _, l := range lines {
		if l["msg"] == "tool call" {
			out = append(out, l)
		}
	}
	return out, err
}

// TestInputRequiredPassesThroughUntouched: a handler's input_required
// result reaches the client as the handler made it but for its
// requestState, which the chain seals around the handler's own (so that
// the next round is tied to this one, docs/long-running.md); the
// handler's value is not changed.
func TestInputRequiredPassesThroughUntouched(t *testing.T) {
	var inner *mcp.CallToolResult
	h := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		inner = server.NewInputRequestBuilder("s").Elicit("x", mcp.ElicitationParams{Message: "?"}).ToolResult()
		return inner, nil
	}
	st := mcpgo.Tool(wrap.New(), tool("t"), h)
	got, err := st.Handler(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "t"}})
	if err != nil || !got.NeedsInput() || got.IsError || inner.RequestState != "s" ||
		!strings.HasPrefix(got.RequestState, "mcpwrap1.") || got.InputRequests["x"].Elicitation != inner.InputRequests["x"].Elicitation {
		t.Fatalf("input_required result changed: %+v, %v", got, err)
	}
}

// TestToolErrorResultKeepsItsShape: an isError result the handler built
// keeps its texts and its structured content (which an output schema may
// constrain); the chain adds the call id as a last text content, on a
// copy, never on the handler's value.
func TestToolErrorResultKeepsItsShape(t *testing.T) {
	want := mcp.NewToolResultError("handler's own words")
	want.StructuredContent = map[string]any{"mine": true}
	st := mcpgo.Tool(wrap.New(), tool("t"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return want, nil })
	got, err := st.Handler(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "t"}})
	if err != nil || !got.IsError || len(got.Content) != 2 || firstText(got) != "handler's own words" ||
		!reflect.DeepEqual(got.StructuredContent, want.StructuredContent) || len(want.Content) != 1 {
		t.Fatalf("handler's isError result was reshaped: %+v (the handler's now %+v)", got, want)
	}
	if id := got.Content[1].(mcp.TextContent).Text; !strings.HasPrefix(id, "(call id ") {
		t.Fatalf("last content %q, want the call id", id)
	}
}

func TestPerToolOverStdio(t *testing.T) {
	f := newFixture(t)
	defer close(f.release)
	var logs logbuf.Buffer
	w := wrap.New(wrap.WithLogger(logs.Logger()))
	var tools []server.ServerTool
	for _, st := range f.tools() {
		var opts []wrap.Option
		if strings.HasPrefix(st.Tool.Name, "slow") {
			opts = append(opts, wrap.WithTimeout(200*time.Millisecond))
		}
		tools = append(tools, mcpgo.Tool(w, st.Tool, st.Handler, opts...))
	}
	srv := mcptest.NewUnstartedServer(t)
	srv.AddTools(tools...)
	if err := srv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for _, tc := range cases {
		if tc.tool == "needs_input" {
			continue // mcptest's client has no elicitation handler
		}
		t.Run(tc.tool, func(t *testing.T) {
			var req mcp.CallToolRequest
			req.Params.Name = tc.tool
			res, err := srv.Client().CallTool(t.Context(), req)
			check(t, res, err, tc.want)
		})
	}
}

// TestWithoutWrapTheFailuresAreProtocolErrors shows what the suite guards
// against: the same handlers on a bare server give -32603s and a dropped
// connection. If mcp-go ever changes this, the tour's comparison needs a look.
func TestWithoutWrapTheFailuresAreProtocolErrors(t *testing.T) {
	f := newFixture(t)
	defer close(f.release)
	s := server.NewMCPServer("bare", "1.0.0")
	s.AddTools(f.tools()...)
	conn := testserver.StartHTTP(t, s)
	for _, name := range []string{"plain_error", "nil_result", "refused"} {
		if _, err := conn.Call(t.Context(), name, nil); err == nil || !errors.Is(err, mcp.ErrInternalError) {
			t.Fatalf("%s on a bare server: want -32603, got %v", name, err)
		}
	}
	if _, err := conn.Call(t.Context(), "panics", nil); err == nil {
		t.Fatal("a panic on a bare streamable-HTTP server should drop the connection")
	}
}

func TestConcurrentMixedCalls(t *testing.T) {
	var logs logbuf.Buffer
	_, conn := serveFixture(t, &logs)
	mixed := []int{0, 1, 2, 3, 7, 8, 9}
	var wg sync.WaitGroup
	errc := make(chan error, 256)
	for i := range 256 {
		wg.Go(func() {
			tc := cases[mixed[i%len(mixed)]]
			res, err := conn.Call(context.Background(), tc.tool, nil)
			if err != nil {
				errc <- fmt.Errorf("%s: %w", tc.tool, err)
				return
			}
			if res.IsError != tc.want.isError {
				errc <- fmt.Errorf("%s: isError %v", tc.tool, res.IsError)
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	if errs := conn.Wire.JSONRPCErrors(); len(errs) != 0 {
		t.Fatalf("JSON-RPC errors under load: %d", len(errs))
	}
	lines, err := logs.Lines()
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 256 {
		t.Fatalf("want one log line per call (256), got %d", len(lines))
	}
}

func TestWhenLimitsAMiddlewareToSomeTools(t *testing.T) {
	var seen []string
	mw := func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			seen = append(seen, req.Params.Name)
			return next(ctx, req)
		}
	}
	h := mcpgo.When(mcpgo.ToolNamed("a"), mw)(func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("x"), nil
	})
	for _, name := range []string{"a", "b", "a"} {
		if _, err := h(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name}}); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Join(seen, ",") != "a,a" {
		t.Fatalf("middleware saw %v, want only a,a", seen)
	}
}

func TestClientCancellationIsCanceledNotTimeout(t *testing.T) {
	block := make(chan struct{})
	defer close(block)
	st := mcpgo.Tool(wrap.New(), tool("t"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-block
		return nil, nil
	}, wrap.WithTimeout(time.Hour))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res, err := st.Handler(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := mcpgo.InfoOf(res); info.Code != "canceled" {
		t.Fatalf("want canceled, got %+v", info)
	}
}

// attached is mcpgo.Attach as a server option, for the tests that build a
// server from a list of options.
func attached(w *wrap.Wrapper) server.ServerOption {
	return func(s *server.MCPServer) { mcpgo.Attach(s, w) }
}
