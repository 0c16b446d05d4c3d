package upstream_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
	"github.com/mcpwrap/mcpwrap/wrap/upstream"
)

// weatherAPI is the upstream: a health endpoint and a forecast.
func weatherAPI(hits *atomic.Int64) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /forecast", func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, `{"city":"Lyon","celsius":21}`)
	})
	return mux
}

// httpHolder is how a tool keeps an *http.Client to one upstream.
func httpHolder(base string, dials *atomic.Int64, opts ...upstream.Option) *upstream.Holder[*http.Client] {
	dial := func(context.Context) (*http.Client, error) {
		dials.Add(1)
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 64 // one per caller: no churn of connections
		return &http.Client{Transport: tr}, nil
	}
	health := func(ctx context.Context, c *http.Client) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/healthz", nil)
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		return errs.FromStatus("weather-api", resp.StatusCode, resp.Header)
	}
	closeIdle := func(c *http.Client) error { c.CloseIdleConnections(); return nil }
	return upstream.New("weather-api", dial, append([]upstream.Option{
		upstream.WithHealth(health), upstream.WithClose(closeIdle),
	}, opts...)...)
}

func forecastTool(h *upstream.Holder[*http.Client], base string) server.ServerTool {
	return server.ServerTool{
		Tool: mcp.NewTool("get_forecast", mcp.WithReadOnlyHintAnnotation(true)),
		Handler: func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			lease, err := h.Get(ctx)
			if err != nil {
				return nil, err
			}
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/forecast", nil)
			resp, err := lease.Client.Do(req)
			var body []byte
			if err == nil {
				body, err = io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if err == nil {
					err = errs.FromStatus("weather-api", resp.StatusCode, resp.Header)
				}
			}
			if err = lease.Done(ctx, err); err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(string(body)), nil
		},
	}
}

// TestUpstreamRestartOnSamePortUnder64Callers is the first check: a
// real upstream is stopped and restarted on the same port while 64 callers
// go through a real MCP server over streamable HTTP.
func TestUpstreamRestartOnSamePortUnder64Callers(t *testing.T) {
	var hits, dials atomic.Int64
	api := testserver.StartRestartable(t, weatherAPI(&hits))
	base := "http://" + api.Addr
	var logs logbuf.Buffer
	var clk aheadClock
	h := httpHolder(base, &dials, upstream.WithPolicy(upstream.Policy{Backoff: 100 * time.Millisecond, MaxBackoff: 400 * time.Millisecond}),
		upstream.WithLogger(logs.Logger()), upstream.WithClock(clk.now))
	defer h.Close()

	const deadline = 3 * time.Second
	s := server.NewMCPServer("weather", "1.0.0", attached(wrap.New(
		wrap.WithLogger(logs.Logger()), wrap.WithTimeout(deadline), wrap.WithRetry(wrap.RetryPolicy{}))))
	s.AddTools(forecastTool(h, base))
	conn := serveMCP(t, s)
	session := conn.Client.GetSessionId()

	var (
		mu      sync.Mutex
		results = map[string][]callResult{} // by phase
		phase   atomic.Value
		stop    = make(chan struct{})
		wg      sync.WaitGroup
	)
	phase.Store("before")
	for range 64 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				p := phase.Load().(string)
				begin := time.Now()
				res, err := conn.Call(context.Background(), "get_forecast", nil)
				r := callResult{err: err, elapsed: time.Since(begin)}
				if p2 := phase.Load().(string); p2 != p {
					p = "outage" // a call that spans a stop or restart
				}
				if err == nil {
					r.ok = !res.IsError
					r.text = res.Content[0].(mcp.TextContent).Text
					info, _ := mcpgo.InfoOf(res)
					r.code = info.Code
				}
				mu.Lock()
				results[p] = append(results[p], r)
				mu.Unlock()
				time.Sleep(2 * time.Millisecond)
			}
		})
	}
	count := func(p string) int { mu.Lock(); defer mu.Unlock(); return len(results[p]) }
	waitFor(t, func() bool { return count("before") >= 128 }, "calls do not flow")
	phase.Store("outage") // before the stop, so no failure is counted as "before"
	api.Stop()
	outageBegan := time.Now()
	waitFor(t, func() bool { return count("outage") >= 256 }, "calls stopped during the outage")
	// The outage lasts until the breaker has probed the stopped upstream
	// and failed three times, so its open window has grown (100ms, 200ms,
	// then the 400ms maximum, each at least halved by jitter).
	waitFor(t, func() bool { return h.Stats().FailedDials >= 3 }, "the breaker did not probe the stopped upstream")
	if err := api.Restart(); err != nil {
		t.Fatal(err)
	}
	phase.Store("after")
	close(stop)
	wg.Wait()

	// The first call once the breaker's advertised wait has passed succeeds
	// at its first attempt, on the same MCP server and session. The wait
	// passes on the breaker's clock, not by sleeping through it.
	clk.advance(h.Stats().RetryAfter)
	retries, _ := logs.Find("event", "retry")
	res, err := conn.Call(t.Context(), "get_forecast", nil)
	if err != nil || res.IsError {
		t.Fatalf("first call after the upstream is back: %v %+v", err, res)
	}
	if again, _ := logs.Find("event", "retry"); len(again) != len(retries) {
		t.Fatalf("the first call after the advertised wait was retried:\n%s", grepLines(logs.String(), "retry"))
	}
	if conn.Client.GetSessionId() != session {
		t.Fatal("the MCP session changed: the server was restarted")
	}

	mu.Lock()
	defer mu.Unlock()
	failed := checkOutageCalls(t, results, deadline, logs.String())
	if jerrs := conn.Wire.JSONRPCErrors(); len(jerrs) != 0 {
		t.Fatalf("JSON-RPC errors on the wire: %s", jerrs[0])
	}
	st := h.Stats()
	if st.Dials != 2 {
		t.Fatalf("want 2 successful dials (the first connect and one reconnect after the outage), got %d", st.Dials)
	}
	// Failed dials are one per open window, not one per caller: windows
	// last at least 50ms, 100ms, then 200ms each (jitter keeps half).
	limit := 4 + int64(time.Since(outageBegan)/(200*time.Millisecond))
	if st.FailedDials > limit || st.Broken != 1 {
		t.Fatalf("dials not bounded under 64 callers: %+v", st)
	}
	t.Logf("calls: %d before, %d during the outage (%d failed, all precise); holder %+v",
		len(results["before"]), len(results["outage"]), failed, st)
}

// aheadClock is the real clock, moved ahead on demand: a breaker's open
// window passes without the test sleeping through it.
type aheadClock struct{ ahead atomic.Int64 }

func (c *aheadClock) now() time.Time { return time.Now().Add(time.Duration(c.ahead.Load())) }

func (c *aheadClock) advance(d time.Duration) { c.ahead.Add(int64(d)) }

// callResult is how one call of TestUpstreamRestartOnSamePortUnder64Callers went.
type callResult struct {
	ok      bool
	code    string
	text    string
	err     error
	elapsed time.Duration
}

// checkOutageCalls checks the calls by phase: all ok before the outage;
// during and after it, tool results only, on time, with a precise code and
// message. It returns how many failed.
func checkOutageCalls(t *testing.T, results map[string][]callResult, deadline time.Duration, logs string) int {
	t.Helper()
	outage := results["outage"]
	if len(results["before"]) == 0 || len(outage) < 64 {
		t.Fatalf("too few calls: before %d, outage %d", len(results["before"]), len(outage))
	}
	for _, r := range results["before"] {
		if !r.ok {
			t.Fatalf("a call failed before the outage: %+v\n%s", r, grepLines(logs, "retry", "broken", "breaker"))
		}
	}
	failed := 0
	for _, r := range append(outage, results["after"]...) {
		if r.err != nil {
			t.Fatalf("a call got a protocol/transport error instead of a tool result: %v", r.err)
		}
		if r.elapsed > deadline+2*time.Second {
			t.Fatalf("a call hung for %v, past its %v deadline", r.elapsed, deadline)
		}
		if r.ok {
			continue
		}
		failed++
		if r.code != "unavailable" && r.code != "timeout" {
			t.Fatalf("outage answered with code %q: %s", r.code, r.text)
		}
		if !strings.Contains(r.text, "weather-api") && !strings.Contains(r.text, "timed out") {
			t.Fatalf("imprecise message: %q", r.text)
		}
	}
	if failed == 0 {
		t.Fatal("no call saw the outage")
	}
	return failed
}

// TestHolderReconnectsAnMCPClient keeps an mcp-go client to another MCP
// server. The other server restarts (same port, sessions forgotten): the
// read-only tool's next call reconnects and succeeds, retried once.
func TestHolderReconnectsAnMCPClient(t *testing.T) {
	newUpstream := func() http.Handler {
		s := server.NewMCPServer("geo", "1.0.0")
		s.AddTool(mcp.NewTool("locate"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("45.76N 4.84E"), nil
		})
		// Stateful, with the 2025-11-25 handshake: a restart forgets the
		// sessions and the old client gets 404 (ErrSessionTerminated).
		return server.NewStreamableHTTPServer(s, server.WithStateful(true))
	}
	geo := testserver.StartRestartable(t, newUpstream())
	url := "http://" + geo.Addr + "/mcp"
	dial := func(ctx context.Context) (*client.Client, error) {
		tr, err := transport.NewStreamableHTTP(url)
		if err != nil {
			return nil, err
		}
		c := client.NewClient(tr, client.WithProtocolVersion("2025-11-25"))
		if err := c.Start(ctx); err != nil {
			_ = c.Close()
			return nil, err
		}
		if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
			_ = c.Close()
			return nil, err
		}
		return c, nil
	}
	var logs logbuf.Buffer
	h := upstream.New("geo-mcp", dial, upstream.WithClose((*client.Client).Close), upstream.WithLogger(logs.Logger()),
		upstream.WithErrors(mcpgo.MarkError)) // an ended mcp-go session is a broken client
	defer h.Close()

	s := server.NewMCPServer("front", "1.0.0")
	s.AddTools(mcpgo.Tool(wrap.New(), mcp.NewTool("where", mcp.WithIdempotentHintAnnotation(true)),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			lease, err := h.Get(ctx)
			if err != nil {
				return nil, err
			}
			var req mcp.CallToolRequest
			req.Params.Name = "locate"
			res, err := lease.Client.CallTool(ctx, req)
			if err = lease.Done(ctx, err); err != nil {
				return nil, err
			}
			return res, nil
		}, wrap.WithLogger(logs.Logger()), wrap.WithRetry(wrap.RetryPolicy{Initial: 10 * time.Millisecond})))
	conn := testserver.StartHTTP(t, s)

	call := func() *mcp.CallToolResult {
		t.Helper()
		res, err := conn.Call(t.Context(), "where", nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call(); res.IsError {
		t.Fatalf("before the restart: %+v", res.Content)
	}
	geo.Stop()
	if err := geo.RestartWith(newUpstream()); err != nil { // a new process: old sessions are unknown
		t.Fatal(err)
	}
	res := call()
	if res.IsError {
		t.Fatalf("after the restart: %+v", res.Content)
	}
	st := h.Stats()
	if st.Dials != 2 || st.Broken != 1 {
		t.Fatalf("want one reconnect, got %+v", st)
	}
	lines, _ := logs.Find("event", "retry")
	if len(lines) != 1 {
		t.Fatalf("want one retry event, got %d: %s", len(lines), logs.String())
	}
	if cause, _ := lines[0]["cause"].(string); !strings.Contains(cause, "session terminated") && !strings.Contains(cause, "connection") {
		t.Fatalf("retry cause %q", cause)
	}
}

func grepLines(s string, words ...string) string {
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		for _, w := range words {
			if strings.Contains(line, w) {
				out = append(out, line)
				break
			}
		}
	}
	if len(out) > 20 {
		out = out[:20]
	}
	return strings.Join(out, "\n")
}

// serveMCP is testserver.StartHTTP with a hard stop: the server is closed,
// not shut down gracefully, so no keep-alive connection of the 64 callers
// outlives the test (goleak checks).
func serveMCP(t *testing.T, s *server.MCPServer) *testserver.Conn {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: server.NewStreamableHTTPServer(s), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	url := "http://" + ln.Addr().String() + "/mcp"
	wire := &testserver.Wire{}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = 64
	hc := &http.Client{Transport: wire.RoundTripper(base)}
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPBasicClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // after the client's own Cleanup (testserver.Start) closes it
		_ = hs.Close()
		base.CloseIdleConnections()
	})
	cl := testserver.Start(t, tr)
	return &testserver.Conn{Client: cl, URL: url, Wire: wire}
}
