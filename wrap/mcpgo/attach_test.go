package mcpgo_test

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/benchobs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// perRequest is an mcp-go server built per HTTP request (as
// github-mcp-server does) and its Attach.
var perRequest = adaptercases.PerRequest[*server.MCPServer]{
	New:    func() *server.MCPServer { return server.NewMCPServer("per-request", "1.0.0") },
	Attach: mcpgo.Attach,
}

// BenchmarkAttachPerRequest: a server built per HTTP request with one
// shared Wrapper (adaptercases.BenchAttachPerRequest).
//
//	go test -run '^$' -bench BenchmarkAttachPerRequest ./wrap/mcpgo/
func BenchmarkAttachPerRequest(b *testing.B) { adaptercases.BenchAttachPerRequest(b, perRequest) }

// TestAttachIsCheap: attaching a Wrapper that observes (the hooks, the
// propagators, the three middlewares) allocates a bounded few small
// objects beyond the server's own and starts no goroutine.
func TestAttachIsCheap(t *testing.T) {
	// 15, and 4 for the two hooks that end a task's work (tasks/cancel,
	// the session's end: a closure and a list each).
	adaptercases.CheckAttachIsCheap(t, perRequest, wrap.New(obstest.WithObserver(benchobs.Observer(t))), 19)
}

// BenchmarkAttachSideBySide is BenchmarkAttachPerRequest with the forms
// taking turns call by call (adaptercases.BenchAttachSideBySide).
//
//	go test -run '^$' -bench AttachSideBySide -benchtime 20000x -count 3 .
func BenchmarkAttachSideBySide(b *testing.B) { adaptercases.BenchAttachSideBySide(b, perRequest) }

// TestAttachPerRequestLeavesNothing: 10 000 servers attached to one
// Wrapper and dropped leave the heap and the goroutine count where they
// were (adaptercases.CheckAttachLeavesNothing).
func TestAttachPerRequestLeavesNothing(t *testing.T) {
	adaptercases.CheckAttachLeavesNothing(t, perRequest)
}

// attached is mcpgo.Attach as a server option, for the tests that build a
// server from a list of options.
func attached(w *wrap.Wrapper) server.ServerOption {
	return func(s *server.MCPServer) { mcpgo.Attach(s, w) }
}

// TestServerOptionsLogEveryRequest: the one-line retrofit with
// ServerOptions gives every tools/call exactly one log line, the ones mcp-go
// answers before any middleware (unknown tool) included; the Middleware alone
// cannot see those.
func TestServerOptionsLogEveryRequest(t *testing.T) {
	var logs logbuf.Buffer
	s := server.NewMCPServer("files", "1.0.0", attached(wrap.New(wrap.WithLogger(logs.Logger()))))
	s.AddTool(mcp.NewTool("echo"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	conn := testserver.StartHTTP(t, s)
	if res, err := conn.Call(t.Context(), "echo", nil); err != nil || res.IsError {
		t.Fatalf("echo: %+v, %v", res, err)
	}
	if _, err := conn.Call(t.Context(), "no_such_tool", nil); err == nil {
		t.Fatal("an unknown tool must stay a JSON-RPC error")
	}
	for tool, outcome := range map[string]string{"echo": "success", "no_such_tool": "protocol_error"} {
		lines, err := logs.Find("tool", tool)
		if err != nil {
			t.Fatal(err)
		}
		if len(lines) != 1 || lines[0]["outcome"] != outcome {
			t.Errorf("tool %s: want one line with outcome %s, got %v", tool, outcome, lines)
		}
	}
}
