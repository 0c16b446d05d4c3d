package mcpgo_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// The write rule on every cache and every path (found by review): a cache
// given only through ForTool was never cleared, by writes or by list
// changes (the Wrapper had no cache of its own), and a write run as a
// task went around the cache layer.

// TestCacheOfOneToolIsClearedByWritesAndListChanges: a read-only tool's
// cache given through ForTool, a write of another tool, then a change of
// the tool list: each makes the next read run again.
func TestCacheOfOneToolIsClearedByWritesAndListChanges(t *testing.T) {
	var content atomic.Value
	content.Store("v1")
	var reads atomic.Int64
	s := server.NewMCPServer("fs", "1.0.0", server.WithToolCapabilities(true))
	mcpgo.Attach(s, wrap.New(wrap.ForTool("read_file", wrap.WithCache(wrap.Cache{ReadOnly: true, TTL: time.Minute}))))
	s.AddTool(mcp.NewTool("read_file"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		reads.Add(1)
		return mcp.NewToolResultText(content.Load().(string)), nil
	})
	s.AddTool(mcp.NewTool("write_file"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		content.Store(req.GetString("v", ""))
		return mcp.NewToolResultText("ok"), nil
	})
	c := startCacheClient(t, s)
	read := func() string { return text(c.CallRaw(t, "read_file", `{"path":"a"}`)) }
	read()
	if got := read(); got != "v1" || reads.Load() != 1 {
		t.Fatalf("second read %q after %d runs, want a hit", got, reads.Load())
	}
	c.CallRaw(t, "write_file", `{"v":"v2"}`)
	if got := read(); got != "v2" {
		t.Errorf("read after write = %q (runs %d), want v2", got, reads.Load())
	}
	read() // kept again
	s.DeleteTools("write_file")
	s.AddTool(mcp.NewTool("x"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	content.Store("v3")
	if got := read(); got != "v3" {
		t.Errorf("read after list change = %q (runs %d), want v3", got, reads.Load())
	}
}

// TestCacheIsClearedByAWriteRunAsATask: a write_file run as an MCP task
// drops the kept reads, as the same call in place does.
func TestCacheIsClearedByAWriteRunAsATask(t *testing.T) {
	var content atomic.Value
	content.Store("v1")
	s := server.NewMCPServer("fs", "1.0.0", server.WithTaskCapabilities(true, true, true))
	mcpgo.Attach(s, wrap.New(wrap.WithCache(wrap.Cache{TTL: time.Minute})))
	s.AddTool(mcp.NewTool("read_file", mcp.WithReadOnlyHintAnnotation(true)), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(content.Load().(string)), nil
	})
	s.AddTool(mcp.NewTool("write_file", mcp.WithTaskSupport(mcp.TaskSupportOptional)), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		content.Store(req.GetString("v", ""))
		return mcp.NewToolResultText("ok"), nil
	})
	c := &cacheClient{taskClient(t, s, "http")}
	read := func() string { return text(c.CallRaw(t, "read_file", `{"path":"a"}`)) }
	read()
	read()
	id := createdTaskID(t, callAsTask(t, c.cl, "write_file", map[string]any{"v": "v2"}))
	if id == "" {
		t.Fatal("no task")
	}
	waitTask(t, c.cl, id)
	if content.Load() != "v2" {
		t.Fatal("write did not run")
	}
	if got := read(); got != "v2" {
		t.Errorf("read after a write run as a task = %q, want v2", got)
	}
}
