package wrap_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestArgumentLoggingSwitches: the one-line form takes the switches a
// server with PII in its arguments needs — names only, none at all, a
// per-tool secret name — and the value the server marks sensitive is in
// no log line, whatever the default secret names are.
func TestArgumentLoggingSwitches(t *testing.T) {
	const sensitive = "4111-1111-1111-1111"
	var logs logbuf.Buffer
	w := wrap.New(wrap.WithLogHandler(logs.Logger().Handler()),
		wrap.WithArgumentNamesOnly("profile"), wrap.WithoutArguments("notes"))
	s := server.NewMCPServer("crm", "1.0.0")
	mcpgo.Attach(s, w)
	ok := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	s.AddTool(mcp.NewTool("profile"), ok)
	s.AddTool(mcp.NewTool("notes"), ok)
	s.AddTools(mcpgo.Tool(w, mcp.NewTool("store"), ok, wrap.WithSecrets("value")))
	s.AddTool(mcp.NewTool("echo"), ok)
	conn := testserver.StartHTTP(t, s)
	for _, tool := range []string{"profile", "notes", "store", "echo"} {
		conn.CallRaw(t, tool, `{"value":"`+sensitive+`","sensitive":true}`)
	}
	for _, tool := range []string{"profile", "notes", "store", "echo"} {
		if lines, _ := logs.Find("tool", tool); len(lines) != 1 {
			t.Fatalf("%s: %d lines", tool, len(lines))
		}
	}
	all := logs.String()
	for _, tool := range []string{"profile", "notes", "store"} {
		lines, _ := logs.Find("tool", tool)
		if strings.Contains(toJSON(lines[0]), sensitive) {
			t.Errorf("%s logged the sensitive value", tool)
		}
	}
	if lines, _ := logs.Find("tool", "notes"); lines[0]["arguments"] != nil {
		t.Errorf("notes logged its arguments: %v", lines[0])
	}
	if lines, _ := logs.Find("tool", "profile"); !strings.Contains(toJSON(lines[0]["arguments"]), "19 bytes") {
		t.Errorf("profile: %v", lines[0]["arguments"])
	}
	if !strings.Contains(all, sensitive) {
		t.Error("the switch-less tool did not log its arguments (the test proves nothing)")
	}
}

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
