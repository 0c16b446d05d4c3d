package redislimit_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/redis/go-redis/v9"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/limit/redislimit"
	"github.com/mcpwrap/mcpwrap/wrap/limit/redislimit/internal/redistest"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// The shared store under writes and failures (found by review): a
// generation key Redis evicted brought forgotten answers back, a write
// waited 500 ms on a stalled Redis each time, and a write's Forget made
// while Redis stalled was lost.

// TestCacheForgetsForGoodWhenAGenerationKeyIsEvicted: allkeys-lru may
// evict a generation key; the answers it guarded stay forgotten.
func TestCacheForgetsForGoodWhenAGenerationKeyIsEvicted(t *testing.T) {
	addr := redistest.Addr(t)
	rdb := redis.NewClient(redislimit.ClientOptions(addr))
	defer rdb.Close()
	ctx := context.Background()
	st := redislimit.NewCacheStore(rdb, "review:")
	if err := st.Set(ctx, "k1", "grp", []byte("old answer"), time.Now(), time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := st.Forget(ctx, ""); err != nil { // a write ran: everything dropped
		t.Fatal(err)
	}
	if _, _, ok, _ := st.Get(ctx, "k1", "grp"); ok {
		t.Fatal("still readable after Forget")
	}
	rdb.Del(ctx, "review:g:") // what allkeys-lru may evict: the generation key has no TTL and is rarely touched
	if d, _, ok, _ := st.Get(ctx, "k1", "grp"); ok {
		t.Fatalf("forgotten answer %q is served again once the generation key is evicted", d)
	}
	// A new answer after the eviction is kept and read again.
	if err := st.Set(ctx, "k2", "grp", []byte("new answer"), time.Now(), time.Minute); err != nil {
		t.Fatal(err)
	}
	if d, _, ok, _ := st.Get(ctx, "k2", "grp"); !ok || string(d) != "new answer" {
		t.Fatalf("after the eviction: %q %v, want the new answer", d, ok)
	}
	if _, _, ok, _ := st.Get(ctx, "k1", "grp"); ok {
		t.Fatal("the forgotten answer came back once the generation was made again")
	}
}

// TestWriteDuringStalledRedisWaitsAtMostTheBudget: a call of a tool that
// may write drops what the store keeps; while Redis stalls, the first
// such call waits the store's 50 ms budget and the next ones not at all.
func TestWriteDuringStalledRedisWaitsAtMostTheBudget(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(redislimit.ClientOptions(srv.Addr))
	defer rdb.Close()
	w := wrap.New(wrap.WithCache(wrap.Cache{Store: redislimit.NewCacheStore(rdb, prefix(t))}))
	s := server.NewMCPServer("x", "1.0.0")
	mcpgo.Attach(s, w)
	s.AddTool(mcp.NewTool("write"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	c := alicesClient(t, s)
	call := func() time.Duration {
		var req mcp.CallToolRequest
		req.Params.Name = "write"
		start := time.Now()
		if _, err := c.CallTool(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		return time.Since(start)
	}
	call()
	up := call()
	srv.Pause()
	defer srv.Resume()
	var stalled time.Duration
	for range 8 {
		stalled += call()
	}
	// 500 ms each before: 4 s. The bound leaves a loaded machine room.
	if stalled > 2*time.Second {
		t.Fatalf("8 writes while Redis stalled took %v (one with Redis up: %v)", stalled, up)
	}
}

// TestForgetMadeWhileRedisStalledIsNotLost: a write while Redis stalls
// cannot drop what it keeps; the answers are dropped before the store is
// read again.
func TestForgetMadeWhileRedisStalledIsNotLost(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redis.NewClient(redislimit.ClientOptions(srv.Addr))
	defer rdb.Close()
	w := wrap.New(wrap.WithCache(wrap.Cache{TTL: time.Minute, Store: redislimit.NewCacheStore(rdb, prefix(t))}))
	s := server.NewMCPServer("x", "1.0.0")
	mcpgo.Attach(s, w)
	var content atomic.Value
	content.Store("v1")
	s.AddTool(mcp.NewTool("read", mcp.WithReadOnlyHintAnnotation(true)), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(content.Load().(string)), nil
	})
	s.AddTool(mcp.NewTool("write"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		content.Store("v2")
		return mcp.NewToolResultText("ok"), nil
	})
	c := alicesClient(t, s)
	call := func(name string) string {
		var req mcp.CallToolRequest
		req.Params.Name = name
		r, err := c.CallTool(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return r.Content[0].(mcp.TextContent).Text
	}
	call("read")
	if got := call("read"); got != "v1" {
		t.Fatalf("second read %q", got)
	}
	srv.Pause()
	call("write")
	srv.Resume()
	time.Sleep(1100 * time.Millisecond)
	if got := call("read"); got != "v2" {
		t.Fatalf("read after a write made while Redis stalled: %q, want v2", got)
	}
}
