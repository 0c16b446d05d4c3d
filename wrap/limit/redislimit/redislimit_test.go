package redislimit_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
	"github.com/mcpwrap/mcpwrap/wrap/limit/redislimit"
	"github.com/mcpwrap/mcpwrap/wrap/limit/redislimit/internal/redistest"
)

// prefix keeps each test's keys apart in a Redis shared by the run.
func prefix(t testing.TB) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "mcpwrap-test:" + hex.EncodeToString(b[:]) + ":"
}

func redisClient(t testing.TB, addr string) *redis.Client {
	rdb := redis.NewClient(redislimit.ClientOptions(addr))
	t.Cleanup(func() { _ = rdb.Close() })
	return rdb
}

func call(tool string) mcp.CallToolRequest {
	var req mcp.CallToolRequest
	req.Params.Name = tool
	return req
}

// TestSharedAcrossLimiters: two limiters with their own clients, as two
// replicas would be, share one bucket per key in Redis.
func TestSharedAcrossLimiters(t *testing.T) {
	addr := redistest.Addr(t)
	p := prefix(t)
	key := limit.WithKey(func(context.Context, mcp.CallToolRequest) limit.Key { return limit.Key{Scope: "session", ID: "s1"} })
	a := limit.New(limit.PerMinute(5), key, limit.WithStore(redislimit.New(redisClient(t, addr), redislimit.WithPrefix(p))))
	b := limit.New(limit.PerMinute(5), key, limit.WithStore(redislimit.New(redisClient(t, addr), redislimit.WithPrefix(p))))
	ctx := context.Background()
	allowed := 0
	var last error
	for i := range 12 {
		l := a
		if i%2 == 1 {
			l = b
		}
		if last = l.Admit(ctx, call("search")); last == nil {
			allowed++
		}
	}
	if allowed != 5 {
		t.Errorf("%d of 12 calls allowed across two limiters, want 5", allowed)
	}
	e := errs.From(last)
	if e == nil || e.Code() != errs.RateLimited || e.RetryAfter() < time.Second ||
		e.Message() != `tool "search" allows 5 calls per minute per session` {
		t.Errorf("denial %v (retry after %v)", last, e.RetryAfter())
	}
	// Idle keys expire in Redis: the bucket's key has a TTL.
	keys, err := redisClient(t, addr).Keys(ctx, "rate:"+p+"*").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys %v %v", keys, err)
	}
	if ttl := redisClient(t, addr).TTL(ctx, keys[0]).Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("key %s has TTL %v, want it to expire within the window", keys[0], ttl)
	}
}

// TestOutage stops Redis under a limiter: calls keep getting answers at
// once (fail open admits, fail closed refuses with unavailable), each
// transition is logged once, and when Redis is back the limit applies
// again without a restart.
func TestOutage(t *testing.T) {
	for _, closed := range []bool{false, true} {
		name := "fail open"
		if closed {
			name = "fail closed"
		}
		t.Run(name, func(t *testing.T) {
			srv := redistest.Start(t)
			var logs logbuf.Buffer
			opts := []limit.Option{
				limit.WithLogger(logs.Logger()),
				limit.WithStore(redislimit.New(redisClient(t, srv.Addr), redislimit.WithRetryInterval(200*time.Millisecond))),
			}
			if closed {
				opts = append(opts, limit.WithFailClosed())
			}
			l := limit.New(limit.PerMinute(3), opts...)
			ctx := context.Background()
			for range 3 {
				if err := l.Admit(ctx, call("search")); err != nil {
					t.Fatal(err)
				}
			}
			if err := l.Admit(ctx, call("search")); errs.CodeOf(err) != errs.RateLimited {
				t.Fatalf("fourth call: %v", err)
			}

			srv.Stop()
			for i := range 20 {
				err := l.Admit(ctx, call("search"))
				switch {
				case !closed && err != nil:
					t.Fatalf("down, call %d: fail open refused: %v", i, err)
				case closed:
					info, _ := errs.InfoOf(errs.ToResult(err, errs.Call{Tool: "search"}))
					if info.Code != "unavailable" || info.RetryAfterSeconds != 1 || strings.Contains(info.Message, srv.Addr) {
						t.Fatalf("down, call %d: %+v", i, info)
					}
				}
				time.Sleep(20 * time.Millisecond)
			}

			srv.Restart() // empty: no persistence
			deadline := time.Now().Add(5 * time.Second)
			for !strings.Contains(logs.String(), "answers again") {
				if time.Now().After(deadline) {
					t.Fatalf("no recovery:\n%s", logs.String())
				}
				_ = l.Admit(ctx, call("probe"))
				time.Sleep(50 * time.Millisecond)
			}
			allowed := 0
			for range 5 {
				if l.Admit(ctx, call("search")) == nil {
					allowed++
				}
			}
			if allowed != 3 {
				t.Errorf("after recovery %d of 5 allowed, want the limit of 3 to hold again", allowed)
			}
			out := logs.String()
			if n := strings.Count(out, "rate-limit store failed"); n != 1 {
				t.Errorf("%d failure lines, want 1:\n%s", n, out)
			}
			if n := strings.Count(out, "answers again"); n != 1 {
				t.Errorf("%d recovery lines, want 1:\n%s", n, out)
			}
		})
	}
}

// TestStalled pauses Redis (connections hang): a call still gets its
// answer, after the store's wait rather than never.
func TestStalled(t *testing.T) {
	srv := redistest.Start(t)
	var logs logbuf.Buffer
	l := limit.New(limit.PerMinute(3), limit.WithLogger(logs.Logger()),
		limit.WithStore(redislimit.New(redisClient(t, srv.Addr), redislimit.WithWait(100*time.Millisecond))))
	ctx := context.Background()
	if err := l.Admit(ctx, call("search")); err != nil {
		t.Fatal(err)
	}
	srv.Pause()
	defer srv.Resume()
	done := make(chan error, 1)
	go func() { done <- l.Admit(ctx, call("search")) }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("fail open refused: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a call hung on a stalled Redis")
	}
}
