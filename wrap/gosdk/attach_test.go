package gosdk_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// perRequest is a go-sdk server built per HTTP request and its Attach.
var perRequest = adaptercases.PerRequest[*mcp.Server]{
	New: func() *mcp.Server {
		return mcp.NewServer(&mcp.Implementation{Name: "per-request", Version: "1.0.0"}, nil)
	},
	Attach: gosdk.Attach,
}

// BenchmarkAttachPerRequest: a go-sdk server built per HTTP request with
// one shared Wrapper (adaptercases.BenchAttachPerRequest).
//
//	go test -run '^$' -bench BenchmarkAttachPerRequest ./wrap/gosdk/
func BenchmarkAttachPerRequest(b *testing.B) { adaptercases.BenchAttachPerRequest(b, perRequest) }

// BenchmarkAttachSideBySide is BenchmarkAttachPerRequest with the forms
// taking turns call by call (adaptercases.BenchAttachSideBySide).
//
//	go test -run '^$' -bench AttachSideBySide -benchtime 20000x -count 3 .
func BenchmarkAttachSideBySide(b *testing.B) { adaptercases.BenchAttachSideBySide(b, perRequest) }

// TestAttachPerRequestLeavesNothing: 10 000 go-sdk servers attached to one
// Wrapper and dropped leave the heap and the goroutine count flat
// (adaptercases.CheckAttachLeavesNothing).
func TestAttachPerRequestLeavesNothing(t *testing.T) {
	adaptercases.CheckAttachLeavesNothing(t, perRequest)
}
