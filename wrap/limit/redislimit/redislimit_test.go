package redislimit_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/ratelimit"
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

// TestSharedAcrossLimiters: two limiters with their own clients, as two
// replicas would be, share one bucket per key in Redis.
func TestSharedAcrossLimiters(t *testing.T) {
	addr := redistest.Addr(t)
	p := prefix(t)
	key := limit.WithKey(func(context.Context, limit.Call) limit.Key { return limit.Key{Scope: "session", ID: "s1"} })
	a := limit.New(limit.Rate{Limit: 5, Per: time.Minute}, key, redislimit.Store(redisClient(t, addr), redislimit.WithPrefix(p)))
	b := limit.New(limit.Rate{Limit: 5, Per: time.Minute}, key, redislimit.Store(redisClient(t, addr), redislimit.WithPrefix(p)))
	ctx := context.Background()
	allowed := 0
	var last error
	for i := range 12 {
		l := a
		if i%2 == 1 {
			l = b
		}
		if last = l.Admit(ctx, "search", "", nil); last == nil {
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
				redislimit.Store(redisClient(t, srv.Addr), redislimit.WithRetryInterval(200*time.Millisecond)),
			}
			if closed {
				opts = append(opts, limit.WithFailClosed())
			}
			l := limit.New(limit.Rate{Limit: 3, Per: time.Minute}, opts...)
			ctx := context.Background()
			for range 3 {
				if err := l.Admit(ctx, "search", "", nil); err != nil {
					t.Fatal(err)
				}
			}
			if err := l.Admit(ctx, "search", "", nil); errs.CodeOf(err) != errs.RateLimited {
				t.Fatalf("fourth call: %v", err)
			}

			srv.Stop()
			allowed, limited := 0, 0
			for i := range 20 {
				err := l.Admit(ctx, "search", "", nil)
				info := errmap.ToResult(err, errmap.Call{Tool: "search"}).Info
				switch {
				case err == nil && !closed:
					allowed++
				case !closed && i >= ratelimit.OutageAfter-1 && info.Code == "rate_limited":
					limited++ // fail open is bounded: the local limiter at the same rate
				case (closed || i < ratelimit.OutageAfter-1) && info.Code == "unavailable" && info.RetryAfterSeconds == 1 &&
					!strings.Contains(info.Message, srv.Addr):
					// Fail closed; or fail open before ratelimit.OutageAfter failures
					// in a row made it an outage: refused with a retry.
				default:
					t.Fatalf("down, call %d: %v %+v", i, err, info)
				}
				time.Sleep(20 * time.Millisecond)
			}
			if !closed && (allowed != 3 || limited != 20-3-(ratelimit.OutageAfter-1)) {
				t.Errorf("fail open, Redis down: %d allowed, %d rate_limited of 20; want the limit of 3 held locally", allowed, limited)
			}

			srv.Restart() // empty: no persistence
			deadline := time.Now().Add(5 * time.Second)
			for !strings.Contains(logs.String(), "answers again") {
				if time.Now().After(deadline) {
					t.Fatalf("no recovery:\n%s", logs.String())
				}
				_ = l.Admit(ctx, "probe", "", nil)
				time.Sleep(50 * time.Millisecond)
			}
			allowed = 0
			for range 5 {
				if l.Admit(ctx, "search", "", nil) == nil {
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
// answer (refused with a retry: one call is not an outage), after the
// store's waits rather than never.
func TestStalled(t *testing.T) {
	srv := redistest.Start(t)
	var logs logbuf.Buffer
	l := limit.New(limit.Rate{Limit: 3, Per: time.Minute}, limit.WithLogger(logs.Logger()),
		redislimit.Store(redisClient(t, srv.Addr), redislimit.WithWait(100*time.Millisecond)))
	ctx := context.Background()
	if err := l.Admit(ctx, "search", "", nil); err != nil {
		t.Fatal(err)
	}
	srv.Pause()
	defer srv.Resume()
	done := make(chan error, 1)
	go func() { done <- l.Admit(ctx, "search", "", nil) }()
	select {
	case err := <-done:
		// One slow call is not an outage: it is refused with a retry,
		// not run unchecked.
		if info := errmap.ToResult(err, errmap.Call{Tool: "search"}).Info; err != nil && (info.Code != "unavailable" || info.RetryAfterSeconds != 1) {
			t.Errorf("a call on a stalled Redis: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a call hung on a stalled Redis")
	}
}

// holdKey marks the ctx of a call whose failing Redis command the
// holdHook keeps from returning until released.
type holdKey struct{}

// holdHook holds the failure of a marked call: it has failed (failed is
// closed), but the store sees it only once release is closed.
type holdHook struct {
	failed, release chan struct{}
}

func (h *holdHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *holdHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *holdHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err != nil && ctx.Value(holdKey{}) != nil {
			close(h.failed)
			<-h.release
		}
		return err
	}
}

// TestRecoveryDoesNotFlap: a call that asked Redis while it was down and
// fails only after another call found Redis back is an echo of the outage
// just over. The store stays on (the next call is checked, not refused by
// a switched-off store), and the outage and the recovery are logged once
// each, not twice.
func TestRecoveryDoesNotFlap(t *testing.T) {
	const retry = 200 * time.Millisecond
	srv := redistest.Start(t)
	rdb := redisClient(t, srv.Addr)
	hold := &holdHook{failed: make(chan struct{}), release: make(chan struct{})}
	rdb.AddHook(hold)
	var logs logbuf.Buffer
	// Fail closed, so that a call the store does not check is refused.
	l := limit.New(limit.Rate{Limit: 100, Per: time.Minute}, limit.WithLogger(logs.Logger()), limit.WithFailClosed(),
		redislimit.Store(rdb, redislimit.WithRetryInterval(retry), redislimit.WithPrefix(prefix(t))))
	ctx := context.Background()
	if err := l.Admit(ctx, "search", "", nil); err != nil {
		t.Fatal(err)
	}

	srv.Stop()
	for range ratelimit.OutageAfter { // an outage, not a single failure
		if err := l.Admit(ctx, "search", "", nil); errs.CodeOf(err) != errs.Unavailable {
			t.Fatalf("Redis down, fail closed: %v", err)
		}
	}
	time.Sleep(retry) // the store asks Redis again after this
	late := make(chan error, 1)
	go func() { late <- l.Admit(context.WithValue(ctx, holdKey{}, true), "search", "", nil) }()
	<-hold.failed // it asked the stopped Redis and failed

	srv.Restart()
	if err := l.Admit(ctx, "search", "", nil); err != nil {
		t.Fatalf("the first call after the restart: %v", err)
	}
	close(hold.release)
	if err := <-late; errs.CodeOf(err) != errs.Unavailable {
		t.Fatalf("the call that failed during the outage: %v", err) // its answer is unknown: fail closed
	}
	for i := range 3 {
		if err := l.Admit(ctx, "search", "", nil); err != nil {
			t.Fatalf("call %d after the late failure was refused (the store switched itself off again): %v\n%s", i, err, logs.String())
		}
	}
	out := logs.String()
	if n := strings.Count(out, "rate-limit store failed"); n != 1 {
		t.Errorf("%d outages logged, want 1:\n%s", n, out)
	}
	if n := strings.Count(out, "answers again"); n != 1 {
		t.Errorf("%d recoveries logged, want 1:\n%s", n, out)
	}
}

// dialCounter counts the dial attempts of a client.
type dialCounter struct{ n *atomic.Int32 }

func (d dialCounter) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		d.n.Add(1)
		return next(ctx, network, addr)
	}
}

func (d dialCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (d dialCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// TestDeadRedisIsRefusedAtOnce: with ClientOptions, a call against a
// stopped Redis dials once and is refused, instead of go-redis dialling it
// again and again (5 attempts, 100ms apart) until the store's wait is
// over.
func TestDeadRedisIsRefusedAtOnce(t *testing.T) {
	srv := redistest.Start(t)
	rdb := redisClient(t, srv.Addr)
	var dials atomic.Int32
	rdb.AddHook(dialCounter{&dials})
	lim := limit.New(limit.Rate{Limit: 3, Per: time.Minute},
		redislimit.Store(rdb, redislimit.WithWait(5*time.Second), redislimit.WithPrefix(prefix(t))))
	srv.Stop()
	begin := time.Now()
	err := lim.Admit(t.Context(), "search", "", nil)
	took := time.Since(begin)
	if errs.CodeOf(err) != errs.Unavailable {
		t.Fatalf("a stopped Redis answered: %v", err)
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("one call against a stopped Redis dialled it %d times in %v, want once", n, took)
	}
	t.Logf("refused in %v after one dial: %v", took, err)
}
