package upstream_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
	"github.com/mcpwrap/mcpwrap/wrap/upstream"
)

// hungAddr returns the address of an upstream that accepts connections and
// never answers, like a process stopped with SIGSTOP: the kernel completes
// the handshakes, nobody reads.
func hungAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	return ln.Addr().String()
}

func newHTTPClient(context.Context) (*http.Client, error) {
	return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}, nil
}

func closeIdle(c *http.Client) error { c.CloseIdleConnections(); return nil }

// TestHungUpstreamOpensTheBreakerAfterConsecutiveTimeouts: callers of a
// real MCP server whose tool calls a hung upstream each wait out the
// per-call timeout, but only until Threshold of them have; then the breaker
// is open and the next call fails at once, unavailable, with a retry-after
// and no side effects. Timeouts on one client count one by one, not once
// per client.
func TestHungUpstreamOpensTheBreakerAfterConsecutiveTimeouts(t *testing.T) {
	const timeout = time.Second
	base := "http://" + hungAddr(t)
	// The breaker's clock stands still: its open window (half a second at
	// least) cannot pass before the call that must find it open, however
	// slowly this machine runs.
	h := upstream.New("hung-api", newHTTPClient, upstream.WithClose(closeIdle), upstream.WithPolicy(upstream.Policy{Threshold: 3}),
		upstream.WithClock(newClock().now))
	defer h.Close()
	var sentMu sync.Mutex
	sent := map[*http.Client]int{} // requests sent to the hung upstream, by client
	s := server.NewMCPServer("hung", "1.0.0")
	s.AddTools(mcpgo.Tool(wrap.New(), mcp.NewTool("book_table"), // may change something: never retried
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			err := h.Do(ctx, func(ctx context.Context, c *http.Client) error {
				sentMu.Lock()
				sent[c]++
				sentMu.Unlock()
				return getForecast(ctx, c, base)
			})
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText("booked"), nil
		}, wrap.WithTimeout(timeout), wrap.WithRetry(wrap.RetryPolicy{})))
	conn := serveMCP(t, s)
	call := func() (errs.Info, time.Duration) {
		begin := time.Now()
		res, err := conn.Call(t.Context(), "book_table", nil)
		if err != nil {
			t.Error(err)
			return errs.Info{}, 0
		}
		info, _ := mcpgo.InfoOf(res)
		return info, time.Since(begin)
	}

	var wg sync.WaitGroup
	var slowest time.Duration
	var mu sync.Mutex
	for range 8 { // all on the first client
		wg.Go(func() {
			info, took := call()
			if info.Code != errs.Timeout.String() {
				t.Errorf("a call to the hung upstream: %+v", info)
			}
			mu.Lock()
			slowest = max(slowest, took)
			mu.Unlock()
		})
	}
	wg.Wait()
	if st := h.Stats(); st.State != "open" {
		t.Fatalf("after 8 timeouts: %+v", st)
	}
	sentMu.Lock()
	if len(sent) != 1 {
		t.Fatalf("the 8 calls went through %d clients, want them all on the first: %v", len(sent), sent)
	}
	sentMu.Unlock()
	info, took := call()
	if info.Code != errs.Unavailable.String() || !strings.HasPrefix(info.Message, "upstream hung-api is unavailable") ||
		info.RetryAfterSeconds < 1 || info.SideEffects != errmap.SideEffectsNone.String() {
		t.Fatalf("the call after the breaker opened: %+v", info)
	}
	// Failing at once, not after waiting: a call that had reached the hung
	// upstream would have ended in its timeout, not unavailable, and
	// nothing was sent.
	sentMu.Lock()
	defer sentMu.Unlock()
	for _, n := range sent {
		if n != 8 {
			t.Fatalf("%d requests reached the hung upstream, want the 8 before the breaker opened", n)
		}
	}
	t.Logf("8 concurrent calls timed out (slowest answered in %v, timeout %v); the breaker opened; the next call failed in %v: %s",
		slowest.Round(time.Millisecond), timeout, took.Round(10*time.Microsecond), info.Message)
}

// TestHungHealthCheckFailsInTheHealthTimeout: redialling an upstream that
// accepts but never answers fails in the health check's own deadline, well
// before the caller's timeout and the dial timeout; the breaker opens and
// the next caller fails fast.
func TestHungHealthCheckFailsInTheHealthTimeout(t *testing.T) {
	const callTimeout = 5 * time.Second
	base := "http://" + hungAddr(t)
	health := func(ctx context.Context, c *http.Client) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/healthz", nil)
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}
	h := upstream.New("hung-api", newHTTPClient, upstream.WithClose(closeIdle),
		upstream.WithHealth(health), upstream.WithPolicy(upstream.Policy{HealthTimeout: 100 * time.Millisecond}),
		upstream.WithClock(newClock().now)) // the open window cannot pass before the next Get
	defer h.Close()
	ctx, cancel := context.WithTimeout(t.Context(), callTimeout)
	defer cancel()
	begin := time.Now()
	_, err := h.Get(ctx)
	took := time.Since(begin)
	e := errs.From(err)
	if !errors.Is(err, upstream.ErrDial) || !errors.Is(err, errs.ErrNotSent) || e.Code() != errs.Unavailable ||
		e.Message() != "upstream hung-api did not answer in time" || e.RetryAfter() <= 0 {
		t.Fatalf("Get of a hung upstream: %v (message %q, retry after %v)", err, e.Message(), e.RetryAfter())
	}
	if ctx.Err() != nil {
		t.Fatal("the caller waited out its own timeout")
	}
	begin = time.Now()
	_, err = h.Get(ctx)
	t.Logf("Get of a hung upstream failed in %v (health timeout 100ms, caller's timeout %v); the next Get in %v: %v",
		took.Round(time.Millisecond), callTimeout, time.Since(begin).Round(time.Microsecond), err)
	if !errors.Is(err, upstream.ErrOpen) || errmap.SideEffectsOf(err) != errmap.SideEffectsNone || errs.From(err).RetryAfter() <= 0 {
		t.Fatalf("the next Get: %v", err)
	}
	if !strings.Contains(errs.From(err).Message(), "hung-api") {
		t.Fatalf("message %q does not name the upstream", errs.From(err).Message())
	}
}
