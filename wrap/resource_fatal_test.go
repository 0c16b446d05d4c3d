package wrap_test

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/process"
)

// TestResourceFatalExit: an errs.Fatal error from a resource handler is
// answered (masked, -32603), then the process stops with ExitFatal, as for
// a tool; reads arriving meanwhile are refused without running a handler.
func TestResourceFatalExit(t *testing.T) {
	exited := make(chan int, 1)
	w := wrap.New(wrap.WithFatalExit(process.FatalExit{Grace: time.Millisecond, Exit: func(code int) { exited <- code }}))
	s := server.NewMCPServer("notes", "1.0.0", attached(w))
	ran := 0
	s.AddResource(mcp.NewResource("note://config", "config"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		ran++
		return nil, errs.New(errs.Fatal, "the notes database file is corrupt")
	})
	conn := testserver.StartHTTP(t, s, client.WithProtocolVersion("2025-11-25"))
	if _, err := read(conn.Client, "note://config"); err == nil {
		t.Fatal("a fatal error was a success")
	}
	e := lastError(t, conn.Wire)
	if e.Code != mcp.INTERNAL_ERROR || e.Data.Code != "fatal" || e.Data.CallID == "" {
		t.Fatalf("answer = %+v", e)
	}
	select {
	case code := <-exited:
		if code != process.ExitFatal {
			t.Fatalf("exit code %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the process did not stop")
	}
	conn.Wire.Reset()
	if _, err := read(conn.Client, "note://config"); err == nil || ran != 1 {
		t.Fatalf("a read after the fatal error ran the handler (%d runs) or succeeded: %v", ran, err)
	}
	if e := lastError(t, conn.Wire); e.Code != mcp.INTERNAL_ERROR {
		t.Fatalf("refusal = %+v", e)
	}
}
