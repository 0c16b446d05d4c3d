package mcpgo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// recoveringServer is a server as many are shipped, with mcp-go's own
// panic recovery for tools and resources, and a tool and a resource that
// panic with a secret in the value.
func recoveringServer(logs *logbuf.Buffer, attach bool) *server.MCPServer {
	s := server.NewMCPServer("recovering", "1.0.0", server.WithRecovery(), server.WithResourceRecovery())
	s.AddTool(mcp.NewTool("search"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("boom: password=hunter2")
	})
	s.AddResource(mcp.NewResource("res://boom", "boom"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		panic("boom: password=hunter2")
	})
	if attach {
		mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger())))
	}
	return s
}

// TestPanicUnderMCPGoRecoveryIsMasked: a server with server.WithRecovery
// (or WithResourceRecovery) recovered a handler's panic inside the chain,
// and the chain showed the model the panic's text as the tool's error
// ("panic recovered in search tool handler: boom: password=[REDACTED]")
// and logged outcome=tool_error. It is now masked and logged as the panic
// it is, as without WithRecovery.
func TestPanicUnderMCPGoRecoveryIsMasked(t *testing.T) {
	var logs logbuf.Buffer
	conn := testserver.StartHTTP(t, recoveringServer(&logs, true))
	res, err := conn.Client.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "search"}})
	if err != nil {
		t.Fatal(err)
	}
	text := resultText(res.Content)
	if !res.IsError || strings.Contains(text, "boom") || !strings.Contains(text, `internal error in tool "search"`) {
		t.Errorf("the panicking tool answered %q, want the masked internal error", text)
	}
	_, err = conn.Client.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "res://boom"}})
	if err == nil || strings.Contains(err.Error(), "boom:") || !strings.Contains(err.Error(), "internal error in resource") {
		t.Errorf("the panicking resource answered %v, want the masked internal error", err)
	}
	lines, err := logs.Lines()
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 {
		t.Fatalf("%d log lines, want 2: %s", len(lines), logs.String())
	}
	for _, l := range lines {
		if l["outcome"] != "panic" || !strings.Contains(l["cause"].(string), "recovered by mcp-go's WithRecovery") {
			t.Errorf("the line says outcome %v cause %v, want panic, recovered by mcp-go", l["outcome"], l["cause"])
		}
	}
	if strings.Contains(logs.String(), "hunter2") {
		t.Error("the panic's secret is in the log")
	}
}

// TestRecoveredPanicSentencesOfMCPGo pins the sentences mcp-go's
// WithRecovery and WithResourceRecovery make of a panic, which
// wrap/mcpgo/recovery.go reads: it fails when an mcp-go upgrade changes
// them (a panic under them would then be shown as a tool's error again).
func TestRecoveredPanicSentencesOfMCPGo(t *testing.T) {
	conn := testserver.StartHTTP(t, recoveringServer(nil, false))
	_, err := conn.Client.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "search"}})
	if want := "panic recovered in search tool handler: boom: password=hunter2"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("bare mcp-go's WithRecovery answered %v, want it to hold %q", err, want)
	}
	_, err = conn.Client.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "res://boom"}})
	if want := "panic recovered in res://boom resource handler: boom: password=hunter2"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("bare mcp-go's WithResourceRecovery answered %v, want it to hold %q", err, want)
	}
}
