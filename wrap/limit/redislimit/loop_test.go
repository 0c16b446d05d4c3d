package redislimit_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/redis/go-redis/v9"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/limit/redislimit"
	"github.com/mcpwrap/mcpwrap/wrap/limit/redislimit/internal/redistest"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// loopReplica is a real mcp-go server over stateless streamable HTTP whose
// loop guard keeps its memory in the Redis at addr; its "read" tool always
// fails NotFound.
func loopReplica(t *testing.T, addr, prefix string, runs *atomic.Int64, logs *logbuf.Buffer) *client.Client {
	t.Helper()
	rdb := redis.NewClient(redislimit.ClientOptions(addr))
	t.Cleanup(func() { _ = rdb.Close() })
	w := wrap.New(wrap.WithLogger(logs.Logger()),
		wrap.WithLoopGuard(wrap.LoopGuard{Store: redislimit.NewLoopStore(rdb, prefix)}))
	s := server.NewMCPServer("files", "1.0.0")
	mcpgo.Attach(s, w)
	s.AddTool(mcp.NewTool("read", mcp.WithString("path")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return nil, errs.New(errs.NotFound, "no note named gone.md")
	})
	return alicesClient(t, s)
}

// alicesClient serves s over stateless streamable HTTP and returns a real,
// initialized client of it with alice's credential.
func alicesClient(t *testing.T, s *server.MCPServer) *client.Client {
	t.Helper()
	srv := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithStateLess(true)))
	t.Cleanup(srv.Close)
	return testserver.Connect(t, srv.URL, map[string]string{"Authorization": "Bearer alice"})
}

func readGone(t *testing.T, c *client.Client) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "read"
	req.Params.Arguments = map[string]any{"path": "gone.md"}
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) == 0 {
		return ""
	}
	tc, _ := res.Content[0].(mcp.TextContent)
	return tc.Text
}

// TestLoopGuardAcrossReplicas: a model retrying through a load balancer
// met a fresh guard on each replica. With the guard's memory in Redis, 3
// failures through replica A make replica B refuse the fourth identical
// call without running it; the record expires with the window. With Redis
// stopped, every call is still answered, each replica guards on its own
// memory, and says so once.
func TestLoopGuardAcrossReplicas(t *testing.T) {
	srv := redistest.Start(t)
	p := prefix(t)
	var runs atomic.Int64
	var logsA, logsB logbuf.Buffer
	a := loopReplica(t, srv.Addr, p, &runs, &logsA)
	b := loopReplica(t, srv.Addr, p, &runs, &logsB)
	for range 3 {
		readGone(t, a)
	}
	before := runs.Load()
	if text := readGone(t, b); runs.Load() != before || !strings.Contains(text, "failed 3 times") {
		t.Fatalf("replica B ran the fourth identical call (%d runs): %q", runs.Load()-before, text)
	}
	rdb := redisClient(t, srv.Addr)
	keys, err := rdb.Keys(context.Background(), p+"*").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys %v %v", keys, err)
	}
	if ttl := rdb.PTTL(context.Background(), keys[0]).Val(); ttl <= 0 || ttl > 2*time.Minute {
		t.Errorf("key %s has TTL %v, want it to expire within the window", keys[0], ttl)
	}
	if strings.Contains(keys[0], "alice") || strings.Contains(keys[0], "gone.md") {
		t.Errorf("the key names the caller or the arguments: %s", keys[0])
	}

	srv.Stop()
	before = runs.Load()
	for range 5 {
		readGone(t, b) // answered; B's own memory has not seen this call fail
	}
	if got := runs.Load() - before; got != 3 {
		t.Errorf("Redis down: replica B ran %d of 5 identical failing calls, want 3 (its own guard)", got)
	}
	if n := strings.Count(logsB.String(), "loop guard store failed"); n != 1 {
		t.Errorf("replica B logged the store failure %d times, want once:\n%s", n, logsB.String())
	}
}
