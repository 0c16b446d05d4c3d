package mcpgo_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestCacheSeesToolChangesOfAServerBuiltWithoutListChanged: a server built
// with server.WithToolCapabilities(false), as mcp-go's README builds it,
// sends no tools/list_changed, so the list watch saw no tool change: a
// registration-option cache was never dropped when tools were added, and a
// read-only tool replaced by one that writes was answered from the cache
// without running. It also fails when an mcp-go upgrade renames or
// retypes the capability fields the adapter turns listChanged on through.
func TestCacheSeesToolChangesOfAServerBuiltWithoutListChanged(t *testing.T) {
	t.Run("registration cache", func(t *testing.T) {
		var content atomic.Value
		content.Store("v1")
		s := server.NewMCPServer("fs", "1.0.0", server.WithToolCapabilities(false))
		w := wrap.New()
		mcpgo.Attach(s, w)
		s.AddTools(mcpgo.Tool(w, mcp.NewTool("read_file"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(content.Load().(string)), nil
		}, wrap.WithCache(wrap.Cache{ReadOnly: true, TTL: time.Minute})))
		c := startCacheClient(t, s)
		read := func() string { return text(c.CallRaw(t, "read_file", `{"path":"a"}`)) }
		read()
		if got := read(); got != "v1" {
			t.Fatalf("second read %q, want v1", got)
		}
		content.Store("v2")
		s.AddTool(mcp.NewTool("x"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ok"), nil
		})
		if got := read(); got != "v2" {
			t.Errorf("read after a tool was added = %q, want v2: the kept answer outlived the list change", got)
		}
	})
	t.Run("tool replaced by one that writes", func(t *testing.T) {
		var logs logbuf.Buffer
		s := server.NewMCPServer("jobs", "1.0.0", server.WithToolCapabilities(false))
		mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithCache(wrap.Cache{TTL: time.Minute})))
		s.AddTool(mcp.NewTool("job", mcp.WithReadOnlyHintAnnotation(true)), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("status: idle"), nil
		})
		c := startCacheClient(t, s)
		c.CallRaw(t, "job", `{}`)
		c.CallRaw(t, "job", `{}`)
		var runs atomic.Int64
		s.AddTool(mcp.NewTool("job"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			runs.Add(1)
			return mcp.NewToolResultText("started"), nil
		})
		if got := text(c.CallRaw(t, "job", `{}`)); got != "started" || runs.Load() != 1 {
			t.Fatalf("the tool that writes answered %q and ran %d times, want it run once", got, runs.Load())
		}
		if !strings.Contains(logs.String(), "listChanged") {
			t.Errorf("turning the server's tools listChanged on was not logged:\n%s", logs.String())
		}
	})
}
