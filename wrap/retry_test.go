package wrap_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// scripted is a real upstream HTTP server that answers each request with
// the next status of its script (the last one repeats) and counts hits.
type scripted struct {
	hits   atomic.Int64
	mu     sync.Mutex
	script []int
	header http.Header
	URL    string
}

func newScripted(t *testing.T, header http.Header, statuses ...int) *scripted {
	s := &scripted{script: statuses, header: header}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n := int(s.hits.Add(1))
		s.mu.Lock()
		status := s.script[min(n, len(s.script))-1]
		s.mu.Unlock()
		if status != http.StatusOK {
			for k, v := range s.header {
				w.Header()[k] = v
			}
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, "answer %d", n)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// handler calls the upstream and maps its status with errs.FromStatus.
func (s *scripted) handler(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if err := errs.FromStatus("weather-api", resp.StatusCode, resp.Header); err != nil {
		return nil, err
	}
	return mcp.NewToolResultText("ok"), nil
}

// sleeps records the waits instead of spending them.
type sleeps struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return nil
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.waits...)
}

var readOnly = mcp.WithReadOnlyHintAnnotation(true)

func serve(t *testing.T, logs *logbuf.Buffer, opts []wrap.Option, tools ...server.ServerTool) *testserver.Conn {
	s := server.NewMCPServer("weather", "1.0.0", attached(wrap.New(append([]wrap.Option{wrap.WithLogger(logs.Logger())}, opts...)...)))
	s.AddTools(tools...)
	return testserver.StartHTTP(t, s)
}

func TestRetryAfterFrom429IsHonoured(t *testing.T) {
	api := newScripted(t, http.Header{"Retry-After": {"3"}}, 429, 200)
	var sl sleeps
	var logs logbuf.Buffer
	conn := serve(t, &logs, []wrap.Option{wrap.WithRetry(wrap.RetrySleeping(wrap.RetryPolicy{}, sl.sleep))},
		server.ServerTool{Tool: mcp.NewTool("get_forecast", readOnly), Handler: api.handler})
	res, err := conn.Call(t.Context(), "get_forecast", nil)
	if err != nil || res.IsError {
		t.Fatalf("want success after one retry: %v %+v", err, res)
	}
	if got := sl.got(); len(got) != 1 || got[0] != 3*time.Second {
		t.Fatalf("waits = %v, want exactly [3s] (the Retry-After)", got)
	}
	if n := api.hits.Load(); n != 2 {
		t.Fatalf("upstream hit %d times, want 2", n)
	}
	ev, _ := logs.Find("event", "retry")
	if len(ev) != 1 || ev[0]["wait_ms"] != 3000.0 || ev[0]["code"] != "rate_limited" || ev[0]["attempt"] != 2.0 {
		t.Fatalf("retry event: %v", ev)
	}
	line, _ := callLines(&logs, "get_forecast")
	if len(line) != 1 || line[0]["attempts"] != 2.0 || line[0]["outcome"] != "success" {
		t.Fatalf("call line: %v", line)
	}
}

func TestDestructiveToolIsCalledOnceOn503(t *testing.T) {
	api := newScripted(t, nil, 503, 200)
	var sl sleeps
	var logs logbuf.Buffer
	conn := serve(t, &logs, []wrap.Option{wrap.WithRetry(wrap.RetrySleeping(wrap.RetryPolicy{}, sl.sleep))},
		// mcp.NewTool's defaults: destructive, not idempotent.
		server.ServerTool{Tool: mcp.NewTool("charge_card"), Handler: api.handler})
	res, err := conn.Call(t.Context(), "charge_card", nil)
	if err != nil || !res.IsError {
		t.Fatalf("want an isError result: %v %+v", err, res)
	}
	if n := api.hits.Load(); n != 1 {
		t.Fatalf("a destructive tool reached the upstream %d times on a 503", n)
	}
	if len(sl.got()) != 0 {
		t.Fatal("a destructive tool waited for a retry")
	}
	info, _ := mcpgo.InfoOf(res)
	text := res.Content[0].(mcp.TextContent).Text
	if info.Code != "unavailable" || info.SideEffects != errmap.SideEffectsPossible.String() || !strings.Contains(text, "the operation may have happened") {
		t.Fatalf("info %+v text %q", info, text)
	}
}

func TestSafeToolsAreRetriedAtMostTwice(t *testing.T) {
	cases := []struct {
		name string
		tool mcp.Tool
		own  bool // declared idempotent in ForTool
	}{
		{"read-only annotation", mcp.NewTool("t", readOnly), false},
		{"idempotent annotation", mcp.NewTool("t", mcp.WithIdempotentHintAnnotation(true)), false},
		{"declared idempotent in ForTool", mcp.NewTool("t"), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			api := newScripted(t, nil, 503)
			var sl sleeps
			var logs logbuf.Buffer
			opts := []wrap.Option{wrap.WithRetry(wrap.RetrySleeping(wrap.RetryPolicy{}, sl.sleep))}
			if tc.own {
				opts = append(opts, wrap.ForTool("t", wrap.WithRetry(wrap.RetrySleeping(wrap.RetryPolicy{Idempotent: true}, sl.sleep))))
			}
			conn := serve(t, &logs, opts, server.ServerTool{Tool: tc.tool, Handler: api.handler})
			res, err := conn.Call(t.Context(), "t", nil)
			if err != nil || !res.IsError {
				t.Fatalf("%v %+v", err, res)
			}
			if n := api.hits.Load(); n != 3 {
				t.Fatalf("upstream hit %d times, want 3 (1 + 2 retries)", n)
			}
			waits := sl.got()
			if len(waits) != 2 || waits[0] > 200*time.Millisecond || waits[1] > 400*time.Millisecond {
				t.Fatalf("waits %v: want full jitter under 200ms then 400ms", waits)
			}
			info, _ := mcpgo.InfoOf(res)
			text := res.Content[0].(mcp.TextContent).Text
			if info.Attempts != 3 || info.SideEffects != "" || !strings.Contains(text, "(after 3 attempts)") {
				t.Fatalf("info %+v text %q", info, text)
			}
		})
	}
}

func TestPerToolFormReadsTheAnnotations(t *testing.T) {
	api := newScripted(t, nil, 502, 200)
	var sl sleeps
	st := mcpgo.Tool(wrap.New(), mcp.NewTool("t", readOnly), api.handler, wrap.WithRetry(wrap.RetrySleeping(wrap.RetryPolicy{}, sl.sleep)))
	res, err := st.Handler(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "t"}})
	if err != nil || res.IsError || api.hits.Load() != 2 {
		t.Fatalf("%v %+v hits %d", err, res, api.hits.Load())
	}
}

func TestRetryNeverWaitsPastTheDeadline(t *testing.T) {
	cases := []struct {
		name       string
		retryAfter string
		opts       []wrap.Option
		text       string
	}{
		{"retry-after beyond the call's timeout", "5", []wrap.Option{wrap.WithTimeout(time.Second)}, "retry after 5s"},
		{"retry-after beyond the policy's limit", "60", nil, "retry after 1m0s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			api := newScripted(t, http.Header{"Retry-After": {tc.retryAfter}}, 429, 200)
			var sl sleeps
			var logs logbuf.Buffer
			opts := append([]wrap.Option{wrap.WithRetry(wrap.RetrySleeping(wrap.RetryPolicy{}, sl.sleep))}, tc.opts...)
			conn := serve(t, &logs, opts, server.ServerTool{Tool: mcp.NewTool("t", readOnly), Handler: api.handler})
			res, err := conn.Call(t.Context(), "t", nil)
			if err != nil || !res.IsError || api.hits.Load() != 1 || len(sl.got()) != 0 {
				t.Fatalf("want no retry: %v %+v hits %d waits %v", err, res, api.hits.Load(), sl.got())
			}
			if !strings.Contains(res.Content[0].(mcp.TextContent).Text, tc.text) {
				t.Fatalf("the model is not told when to retry: %q", res.Content[0].(mcp.TextContent).Text)
			}
		})
	}
}

func TestRetryBudgetLimitsRetriesDuringAnOutage(t *testing.T) {
	api := newScripted(t, nil, 503)
	var sl sleeps
	var logs logbuf.Buffer
	conn := serve(t, &logs, []wrap.Option{wrap.WithRetry(wrap.RetrySleeping(wrap.RetryPolicy{BudgetTokens: 4}, sl.sleep))},
		server.ServerTool{Tool: mcp.NewTool("t", readOnly), Handler: api.handler})
	for range 10 {
		if _, err := conn.Call(t.Context(), "t", nil); err != nil {
			t.Fatal(err)
		}
	}
	// Without a budget: 10 × 3 = 30 hits. With 4 tokens, retries stop once
	// two failures have drained it to half: one retry in all, and every
	// call's last failure logs the skip.
	if n := api.hits.Load(); n != 11 {
		t.Fatalf("upstream hit %d times during the outage, want 11", n)
	}
	skipped, _ := logs.Find("reason", "retry budget exhausted")
	if len(skipped) != 10 {
		t.Fatalf("want 10 budget skips logged, got %d", len(skipped))
	}
}

func TestRefusedConnectionOnADestructiveToolSaysNothingHappened(t *testing.T) {
	f := newFixture(t)
	st := mcpgo.Tool(wrap.New(), mcp.NewTool("refund"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("post refund: %w", f.dialErr)
	}, wrap.WithRetry(wrap.RetryPolicy{}))
	res, _ := st.Handler(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "refund"}})
	info, _ := mcpgo.InfoOf(res)
	if info.SideEffects != errmap.SideEffectsNone.String() || !strings.Contains(info.Message, "nothing was done") {
		t.Fatalf("info %+v", info)
	}
}

func TestWithoutRetryNothingChanges(t *testing.T) {
	api := newScripted(t, nil, 503, 200)
	st := mcpgo.Tool(wrap.New(), mcp.NewTool("t", readOnly), api.handler)
	res, _ := st.Handler(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "t"}})
	if info, _ := mcpgo.InfoOf(res); api.hits.Load() != 1 || info.SideEffects != "" || info.Attempts != 1 {
		t.Fatalf("hits %d info %+v", api.hits.Load(), info)
	}
}

// TestRetryReachesTheSpanAndTheMetric: a real retry (not a simulated event)
// is a span event on the call's span and counts in the retries counter.
func TestRetryReachesTheSpanAndTheMetric(t *testing.T) {
	api := newScripted(t, nil, 503, 200)
	var sl sleeps
	tel := obstest.Record(t)
	rec, reader := tel.Spans, tel.Reader
	s := server.NewMCPServer("weather", "1.0.0", attached(wrap.New(tel.Option(), wrap.WithRetry(wrap.RetrySleeping(wrap.RetryPolicy{}, sl.sleep)))))
	s.AddTools(server.ServerTool{Tool: mcp.NewTool("get_forecast", readOnly), Handler: api.handler})
	conn := testserver.StartHTTP(t, s)
	if res, err := conn.Call(t.Context(), "get_forecast", nil); err != nil || res.IsError {
		t.Fatalf("want success after a retry: %v %+v", err, res)
	}
	var retries int
	for _, sp := range rec.Ended() {
		if sp.Name() != "tools/call get_forecast" {
			continue
		}
		for _, e := range sp.Events() {
			if e.Name == obs.EventRetry {
				retries++
			}
		}
	}
	if retries != 1 {
		t.Fatalf("want one retry event on the call's span, got %d", retries)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	var counted int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok && m.Name == "mcpwrap.tool.retries" {
				for _, dp := range sum.DataPoints {
					counted += dp.Value
				}
			}
		}
	}
	if counted != 1 {
		t.Fatalf("retries counter = %d, want 1", counted)
	}
}

// TestMiddlewareStepsAsideForToolsWithTheirOwnChain: with wrap.Middleware
// on the server and tools registered through wrap.Tool / mcpgo.Typed, a call
// used to go through both chains: two log lines, and retries multiplied
// (3 attempts outside × 3 inside). Also when another middleware sits
// between the two.
func TestMiddlewareStepsAsideForToolsWithTheirOwnChain(t *testing.T) {
	for _, between := range []bool{false, true} {
		t.Run(fmt.Sprintf("middleware_between=%v", between), func(t *testing.T) {
			api := newScripted(t, nil, 503, 503, 503, 503, 503, 503, 503, 503, 503, 200)
			var sl sleeps
			var logs logbuf.Buffer
			w := wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithRetry(wrap.RetrySleeping(wrap.RetryPolicy{BudgetTokens: 100}, sl.sleep)))
			opts := []server.ServerOption{attached(w)}
			if between {
				opts = append(opts, server.WithToolHandlerMiddleware(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
					return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) { return next(ctx, req) }
				}))
			}
			s := server.NewMCPServer("weather", "1.0.0", opts...)
			s.AddTools(
				mcpgo.Tool(w, mcp.NewTool("get_forecast", readOnly), api.handler),
				mcpgo.Typed(w, mcp.NewTool("get_typed", readOnly), func(ctx context.Context, req mcp.CallToolRequest, _ struct {
					City string `json:"city"`
				}) (*mcp.CallToolResult, error) {
					return api.handler(ctx, req)
				}),
			)
			s.AddTool(mcp.NewTool("plain", readOnly), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, errs.New(errs.NotFound, "nothing here")
			})
			conn := testserver.StartHTTP(t, s)
			for _, name := range []string{"get_forecast", "get_typed"} {
				res, err := conn.Call(t.Context(), name, nil)
				if err != nil || !res.IsError {
					t.Fatalf("%s: want the 503 as an isError result: %v %+v", name, err, res)
				}
				if info, _ := mcpgo.InfoOf(res); info.Attempts != 3 {
					t.Fatalf("%s: %d attempts, want 3 (one chain: 1 + 2 retries)", name, info.Attempts)
				}
				if lines, _ := callLines(&logs, name); len(lines) != 1 {
					t.Fatalf("%s: %d log lines, want 1", name, len(lines))
				}
			}
			if n := api.hits.Load(); n != 6 {
				t.Fatalf("upstream hit %d times for two calls, want 6", n)
			}
			// A plain handler on the same server still gets the middleware.
			res, err := conn.Call(t.Context(), "plain", nil)
			if info, _ := mcpgo.InfoOf(res); err != nil || info.Code != "not_found" {
				t.Fatalf("plain tool lost the middleware: %v %+v", err, res)
			}
			if lines, _ := callLines(&logs, "plain"); len(lines) != 1 {
				t.Fatalf("plain: %d log lines, want 1", len(lines))
			}
			// A tool re-registered without a chain of its own is protected
			// by the middleware again at once.
			s.AddTool(mcp.NewTool("get_forecast", readOnly), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				panic("re-registered without wrap.Tool")
			})
			res, err = conn.Call(t.Context(), "get_forecast", nil)
			if info, _ := mcpgo.InfoOf(res); err != nil || info.Code != "internal" {
				t.Fatalf("re-registered plain tool is unprotected: %v %+v", err, res)
			}
		})
	}
}

// TestRetryEventSaysTheStatusOnce: the retry event's cause, an
// errs.FromStatus error's Error(), said the status twice ("… answered
// HTTP 429 Too Many Requests: upstream weather-api answered HTTP 429").
func TestRetryEventSaysTheStatusOnce(t *testing.T) {
	api := newScripted(t, nil, 429, 200)
	var sl sleeps
	var logs logbuf.Buffer
	conn := serve(t, &logs, []wrap.Option{wrap.WithRetry(wrap.RetrySleeping(wrap.RetryPolicy{}, sl.sleep))},
		server.ServerTool{Tool: mcp.NewTool("get_forecast", readOnly), Handler: api.handler})
	if res, err := conn.Call(t.Context(), "get_forecast", nil); err != nil || res.IsError {
		t.Fatalf("want success after one retry: %v %+v", err, res)
	}
	ev, _ := logs.Find("event", "retry")
	if len(ev) != 1 {
		t.Fatalf("retry events: %v", ev)
	}
	if cause, _ := ev[0]["cause"].(string); strings.Count(cause, "HTTP 429") != 1 {
		t.Fatalf("retry event cause %q, want the status named once", cause)
	}
}
