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
	h := upstream.New("hung-api", newHTTPClient, upstream.WithClose(closeIdle), upstream.WithThreshold(3))
	defer h.Close()
	s := server.NewMCPServer("hung", "1.0.0")
	s.AddTools(mcpgo.Tool(wrap.New(), mcp.NewTool("book_table"), // may change something: never retried
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			err := h.Do(ctx, func(ctx context.Context, c *http.Client) error { return getForecast(ctx, c, base) })
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
	if st := h.Stats(); st.State != upstream.Open {
		t.Fatalf("after 8 timeouts: %+v", st)
	}
	info, took := call()
	if info.Code != errs.Unavailable.String() || !strings.HasPrefix(info.Message, "upstream hung-api is unavailable") ||
		info.RetryAfterSeconds < 1 || info.SideEffects != errs.SideEffectsNone.String() {
		t.Fatalf("the call after the breaker opened: %+v", info)
	}
	if took >= timeout/2 {
		t.Fatalf("the call after the breaker opened took %v; the timeout is %v", took, timeout)
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
		upstream.WithHealth(health), upstream.WithHealthTimeout(100*time.Millisecond))
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
	if !errors.Is(err, upstream.ErrOpen) || errs.SideEffectsOf(err) != errs.SideEffectsNone || errs.From(err).RetryAfter() <= 0 {
		t.Fatalf("the next Get: %v", err)
	}
	if !strings.Contains(errs.From(err).Message(), "hung-api") {
		t.Fatalf("message %q does not name the upstream", errs.From(err).Message())
	}
}
