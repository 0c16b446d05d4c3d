package observe_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
)

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestNewLogger(t *testing.T) {
	var buf bytes.Buffer
	l := observe.NewLogger(observe.LogTo(&buf), observe.LogEnv(env(map[string]string{observe.EnvLogLevel: "warn"})))
	l.Info("hidden")
	l.Warn("shown", "k", 1)
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil || m["msg"] != "shown" {
		t.Fatalf("want one JSON line at warn, got %q (%v)", buf.String(), err)
	}
	buf.Reset()
	l = observe.NewLogger(observe.LogTo(&buf), observe.LogEnv(env(map[string]string{observe.EnvLogFormat: "text"})), observe.LogLevel(slog.LevelDebug))
	l.Debug("colourful", "k", 1)
	if json.Valid(buf.Bytes()) || !strings.Contains(buf.String(), "colourful") || !strings.Contains(buf.String(), "k=1") {
		t.Fatalf("want tint text, got %q", buf.String())
	}
}

// TestSessionIDOnStatefulSessions: with the 2025-11-25 handshake, HTTP
// sessions have an id, and it reaches the span and the log line.
func TestSessionIDOnStatefulSessions(t *testing.T) {
	x := newTel(t)
	s := server.NewMCPServer("w", "1", server.WithToolHandlerMiddleware(wrap.Middleware(wrap.WithObserver(x.obs))))
	s.AddTools(tools()...)
	conn := testserver.StartHTTP(t, s, client.WithProtocolVersion("2025-11-25"))
	if _, err := conn.Call(t.Context(), "ok", nil); err != nil {
		t.Fatal(err)
	}
	a := attrs(x.span(t, "tools/call ok"))
	if a["mcp.session.id"] == "" || a["mcp.protocol.version"] != "2025-11-25" {
		t.Fatalf("attributes %v", a)
	}
	if l := callLine(t, x.logs, "ok"); l["session_id"] != a["mcp.session.id"] {
		t.Fatalf("log %v", l)
	}
}
