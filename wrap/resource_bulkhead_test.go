package wrap_test

import (
	"context"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// TestResourceBulkhead: a resource handler abandoned by its timeout keeps
// its bulkhead slot until it returns, so with one slot the next read is
// refused at once (Unavailable, with a retry-after) instead of piling up
// goroutines; once the handler returns, reads are served again.
func TestResourceBulkhead(t *testing.T) {
	release := make(chan struct{})
	w := wrap.New(wrap.WithTimeout(100*time.Millisecond), wrap.WithBulkhead(wrap.Bulkhead{PerTool: 1}))
	s := server.NewMCPServer("notes", "1.0.0", attached(w))
	returned := make(chan struct{}, 1)
	s.AddResource(mcp.NewResource("note://slow", "slow"), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		<-release // ignores its context
		returned <- struct{}{}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "late"}}, nil
	})
	s.AddResource(mcp.NewResource("note://fast", "fast"), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "note fast"}}, nil
	})
	conn := testserver.StartHTTP(t, s, client.WithProtocolVersion("2025-11-25"))

	if _, err := read(conn.Client, "note://slow"); err == nil {
		t.Fatal("the hung read succeeded")
	}
	if e := lastError(t, conn.Wire); e.Data.Code != "timeout" {
		t.Fatalf("first read: %+v", e)
	}
	conn.Wire.Reset()
	start := time.Now()
	if _, err := read(conn.Client, "note://fast"); err == nil {
		t.Fatal("a read was admitted while the abandoned handler held the only slot")
	}
	if e := lastError(t, conn.Wire); e.Code != mcp.INTERNAL_ERROR || e.Data.Code != "unavailable" || time.Since(start) > 30*time.Second {
		t.Fatalf("refusal: %+v after %v", e, time.Since(start))
	}
	close(release)
	<-returned
	deadline := time.Now().Add(time.Minute)
	for {
		text, err := read(conn.Client, "note://fast")
		if err == nil && text == "note fast" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the slot was never given back: %q, %v", text, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
