package mcpgo_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestSessionToolAdviceFollowsAnnotations: the chain read a tool's
// annotations from the server's global tools only, so a read-only session
// tool (AddSessionTool) that timed out was answered "not retried
// automatically because tool … is not marked read-only or idempotent",
// sideEffects "possible", and a session tool shadowing a global one got
// the global one's advice. The lookup now follows mcp-go's own order:
// session tools first. Global tools keep their advice.
func TestSessionToolAdviceFollowsAnnotations(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	hang := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-release
		return mcp.NewToolResultText("done"), nil
	}
	readOnly := mcp.WithReadOnlyHintAnnotation(true)
	var s *server.MCPServer
	hooks := &server.Hooks{}
	added := make(chan error, 1)
	hooks.AddOnRegisterSession(func(_ context.Context, cs server.ClientSession) {
		added <- s.AddSessionTools(cs.SessionID(),
			server.ServerTool{Tool: mcp.NewTool("read_issue", readOnly), Handler: hang},
			server.ServerTool{Tool: mcp.NewTool("report", readOnly), Handler: hang},
			server.ServerTool{Tool: mcp.NewTool("close_issue", mcp.WithDestructiveHintAnnotation(true)), Handler: hang})
	})
	s = server.NewMCPServer("issues", "1.0.0", server.WithHooks(hooks),
		attached(wrap.New(wrap.WithTimeout(50*time.Millisecond))))
	s.AddTool(mcp.NewTool("report"), hang) // unannotated: shadowed by the session's read-only one
	s.AddTool(mcp.NewTool("stat_issue", readOnly), hang)
	s.AddTool(mcp.NewTool("delete_repo"), hang)
	// Session tools need a session: the handshake before 2026-07-28.
	conn := testserver.StartHTTP(t, s, client.WithProtocolVersion("2025-11-25"))
	select {
	case err := <-added:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no session registered")
	}
	for tool, safe := range map[string]bool{"read_issue": true, "report": true, "stat_issue": true, "close_issue": false, "delete_repo": false} {
		res, err := conn.Call(t.Context(), tool, nil)
		info, _ := mcpgo.InfoOf(res)
		if err != nil || info.Code != "timeout" {
			t.Fatalf("%s: %v %+v", tool, err, info)
		}
		if caution := strings.Contains(info.Message, "not retried automatically"); caution == safe || (info.SideEffects == "possible") == safe {
			t.Errorf("%s (safe to repeat: %v): sideEffects %q, %q", tool, safe, info.SideEffects, info.Message)
		}
	}
}
