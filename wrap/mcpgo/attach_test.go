package mcpgo_test

import (
	"testing"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/benchobs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
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
