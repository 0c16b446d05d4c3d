package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// startLimited serves s through mcpgo.NewHTTPServer on 127.0.0.1:0 and
// returns its URL.
func startLimited(t *testing.T, s *server.MCPServer, l mcpgo.HTTPLimits) string {
	t.Helper()
	hs := mcpgo.NewHTTPServer(s, l, server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return "http://" + ln.Addr().String() + "/mcp"
}

func post(t *testing.T, url, session string, body io.Reader, size int64) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set(server.HeaderKeySessionID, session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// hugeCall is a tools/call whose arguments make the body n bytes long.
func hugeCall(n int) []byte {
	head := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`
	tail := `"}}}`
	return []byte(head + strings.Repeat("a", n-len(head)-len(tail)) + tail)
}

// mcp-go read any request body in full (a 256 MiB body took the process
// from 20 to 593 MiB) before any middleware could look at it.
func TestHTTPServerCapsRequestBodies(t *testing.T) {
	var ran atomic.Int64
	s := server.NewMCPServer("weather", "1.0.0", attached(wrap.New()))
	s.AddTool(mcp.NewTool("echo"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ran.Add(1)
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	const limit = 64 << 10
	url := startLimited(t, s, mcpgo.HTTPLimits{MaxBodyBytes: limit})
	resp, _ := post(t, url, "", strings.NewReader(initialize), int64(len(initialize)))
	session := resp.Header.Get(server.HeaderKeySessionID)
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, session)
	}

	body := hugeCall(limit + 1)
	for _, tc := range []struct {
		name   string
		size   int64 // -1: chunked, the length is not announced
		status int
		msg    string
	}{
		{"announced", int64(len(body)), http.StatusRequestEntityTooLarge, "request body larger than 65536 bytes"},
		{"chunked", -1, http.StatusBadRequest, "request body too large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, got := post(t, url, session, io.MultiReader(bytes.NewReader(body)), tc.size)
			var m struct {
				Error struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if resp.StatusCode != tc.status || json.Unmarshal(got, &m) != nil || m.Error.Code >= 0 || !strings.Contains(m.Error.Message, tc.msg) {
				t.Fatalf("status %d, body %s", resp.StatusCode, got)
			}
		})
	}
	if ran.Load() != 0 {
		t.Fatal("an oversized call reached the handler")
	}
	// A call under the limit still goes through.
	ok := hugeCall(limit - 1)
	if resp, got := post(t, url, session, bytes.NewReader(ok), int64(len(ok))); resp.StatusCode != http.StatusOK || ran.Load() != 1 {
		t.Fatalf("a call under the limit: %d %.200s", resp.StatusCode, got)
	}
}

// mcp-go kept every session that was never deleted (5 000 of them took the
// heap from 2.6 to 54 MiB).
func TestHTTPServerExpiresIdleSessions(t *testing.T) {
	var gone atomic.Int64
	hooks := &server.Hooks{}
	hooks.AddOnUnregisterSession(func(context.Context, server.ClientSession) { gone.Add(1) })
	s := server.NewMCPServer("weather", "1.0.0", server.WithHooks(hooks), attached(wrap.New()))
	s.AddTool(mcp.NewTool("ok"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("fine"), nil
	})
	// The active client calls every 100ms: far inside the TTL even when a
	// loaded machine stretches a call.
	url := startLimited(t, s, mcpgo.HTTPLimits{SessionIdleTTL: 2 * time.Second})

	const sessions = 20
	var idle string
	for range sessions {
		resp, _ := post(t, url, "", strings.NewReader(initialize), int64(len(initialize)))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("initialize: %d", resp.StatusCode)
		}
		idle = resp.Header.Get(server.HeaderKeySessionID)
	}
	// A live client that keeps calling keeps its session.
	c := testserver.Connect(t, url, nil)
	deadline := time.Now().Add(time.Minute)
	for gone.Load() < sessions {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d idle sessions expired", gone.Load(), sessions)
		}
		var req mcp.CallToolRequest
		req.Params.Name = "ok"
		if _, err := c.CallTool(t.Context(), req); err != nil {
			t.Fatalf("the active session was expired: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := gone.Load(); n != sessions {
		t.Fatalf("%d sessions expired, want the %d idle ones", n, sessions)
	}
	// A client of an expired session is still answered (mcp-go's default
	// session ids are checked for form only).
	call := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ok"}}`
	if resp, got := post(t, url, idle, strings.NewReader(call), int64(len(call))); resp.StatusCode != http.StatusOK || !strings.Contains(string(got), "fine") {
		t.Fatalf("a call on an expired session: %d %s", resp.StatusCode, got)
	}
}

// With the README's WithTimeout on a server whose http.Server had a
// WriteTimeout as long, the timeout answer was written at the instant the
// server closed the connection: the client got nothing. Then the answer
// named the time left before the write deadline (`timed out after
// 4.499s` for a 5s timeout) instead of the timeout the operator set.
//
// The answer reaching the client shows it was written before the write
// deadline: past it, net/http closes the connection unwritten. No clock is
// read for that, so a loaded machine cannot fail it; the timeout is long
// enough that its margin (a tenth of the write timeout, 500ms) holds there.
func TestTimeoutAnswerBeatsTheWriteTimeout(t *testing.T) {
	const d = 5 * time.Second // the tool timeout and the write timeout
	says := regexp.MustCompile(`timed out after ([0-9.]+m?s), the most the server's 5s write timeout leaves \(the tool's timeout is 5s\); the operation may still complete upstream`)
	cases := []struct {
		name  string
		serve func(t *testing.T, s *server.MCPServer, ln net.Listener) (shutdown func(context.Context) error)
	}{
		{"mounted in the server's own http.Server with WriteTimeout", func(t *testing.T, s *server.MCPServer, ln net.Listener) func(context.Context) error {
			h := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{}, quietHTTP)
			hs := &http.Server{Handler: h, WriteTimeout: d}
			go func() { _ = hs.Serve(ln) }()
			return func(ctx context.Context) error { return errors.Join(hs.Shutdown(ctx), h.Shutdown(ctx)) }
		}},
		{"mcp-go's StreamableHTTPServer in an http.Server with WriteTimeout", func(t *testing.T, s *server.MCPServer, ln net.Listener) func(context.Context) error {
			h := server.NewStreamableHTTPServer(s, quietHTTP)
			hs := &http.Server{Handler: h, WriteTimeout: d}
			go func() { _ = hs.Serve(ln) }()
			return func(ctx context.Context) error { return errors.Join(hs.Shutdown(ctx), h.Shutdown(ctx)) }
		}},
		{"NewHTTPServer's own WriteTimeout", func(t *testing.T, s *server.MCPServer, ln net.Listener) func(context.Context) error {
			hs := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{WriteTimeout: d}, quietHTTP)
			go func() { _ = hs.Serve(ln) }()
			return hs.Shutdown
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			body, took := callHang(t, d, c.serve)
			t.Logf("answer after %v: %s", took.Round(time.Millisecond), bytes.TrimSpace(body))
			m := says.FindSubmatch(body)
			if m == nil {
				t.Fatalf("want a timeout answer naming the 5s timeout and the write timeout that cut it short, got %s", body)
			}
			if waited, err := time.ParseDuration(string(m[1])); err != nil || waited > d-adapter.WriteMargin(d) {
				t.Errorf("the answer says it waited %s, want at most %v", m[1], d-adapter.WriteMargin(d))
			}
		})
	}
}

// A tool timeout shorter than the write timeout is the one the answer
// names, to the millisecond.
func TestTimeoutAnswerNamesTheTimeoutSet(t *testing.T) {
	const d = 300 * time.Millisecond
	body, _ := callHang(t, d, func(t *testing.T, s *server.MCPServer, ln net.Listener) func(context.Context) error {
		hs := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{WriteTimeout: time.Minute}, quietHTTP)
		go func() { _ = hs.Serve(ln) }()
		return hs.Shutdown
	})
	if want := `timed out after 300ms; the operation may still complete upstream`; !bytes.Contains(body, []byte(want)) {
		t.Fatalf("want %q, got %s", want, body)
	}
}

var quietHTTP = server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler))

// callHang serves a tool "hang" that ignores its context, with timeout d,
// calls it once over HTTP and returns the answer's body and how long it
// took; a call that gets no answer fails the test.
func callHang(t *testing.T, d time.Duration, serve func(t *testing.T, s *server.MCPServer, ln net.Listener) func(context.Context) error) ([]byte, time.Duration) {
	t.Helper()
	release := make(chan struct{})
	s := server.NewMCPServer("weather", "1.0.0",
		attached(wrap.New(wrap.WithLogger(slog.New(slog.DiscardHandler)), wrap.WithTimeout(d))))
	s.AddTool(mcp.NewTool("hang"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-release // ignores its context, as a hung upstream call does
		return mcp.NewToolResultText("late"), nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	shutdown := serve(t, s, ln)
	t.Cleanup(func() {
		close(release)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = shutdown(ctx)
	})
	url := "http://" + ln.Addr().String() + "/mcp"
	resp, _ := post(t, url, "", strings.NewReader(initialize), int64(len(initialize)))
	session := resp.Header.Get(server.HeaderKeySessionID)

	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hang","arguments":{}}}`
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(call)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(server.HeaderKeySessionID, session)
	start := time.Now()
	got, err := http.DefaultClient.Do(req)
	var body []byte
	if err == nil {
		body, err = io.ReadAll(got.Body)
		got.Body.Close()
	}
	if err != nil {
		t.Fatalf("after %v the client got no answer: %v", time.Since(start).Round(time.Millisecond), errors.Unwrap(err))
	}
	if !bytes.Contains(body, []byte(`"isError":true`)) {
		t.Fatalf("want a timeout answer, got %s", body)
	}
	return body, time.Since(start)
}

// TestShutdownDoesNotWaitForAnUnusedConnection: a connection that never
// sent a request (a Go client dials one more than it uses under load) kept
// http.Server.Shutdown busy for five seconds, the whole of a FatalExit's
// default Timeout, so the hooks after HTTPServer.Shutdown never ran. The
// shutdown must finish within a deadline shorter than that, and a served
// client's answer must not be lost.
func TestShutdownDoesNotWaitForAnUnusedConnection(t *testing.T) {
	s := server.NewMCPServer("shutdown", "1.0.0")
	mcpgo.Attach(s, wrap.New())
	s.AddTool(mcp.NewTool("ping"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("pong"), nil
	})
	hs := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	tr, err := transport.NewStreamableHTTP("http://" + ln.Addr().String() + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	defer c.Close()
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	var req mcp.CallToolRequest
	req.Params.Name = "ping"
	if res, err := c.CallTool(context.Background(), req); err != nil || res.IsError {
		t.Fatalf("call before the shutdown: %v %v", res, err)
	}

	idle, err := net.Dial("tcp", ln.Addr().String()) // connected, never writes
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	time.Sleep(50 * time.Millisecond) // let the server accept it

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := hs.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with an unused connection open: %v (want it closed, not waited for)", err)
	}
	if err := <-served; err == nil {
		t.Fatal("Serve returned nil, want http.ErrServerClosed")
	}
}
