package mcpgo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

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
