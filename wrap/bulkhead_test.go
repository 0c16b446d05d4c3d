package wrap_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/mcptest"
	"github.com/mark3labs/mcp-go/server"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// stuck is a tool whose handler ignores its context and returns only when
// released: what a hung driver call looks like.
type stuck struct {
	release chan struct{}
	entered atomic.Int64
	once    sync.Once
}

func newStuck(t *testing.T) *stuck {
	s := &stuck{release: make(chan struct{})}
	t.Cleanup(s.free)
	return s
}

func (s *stuck) free() { s.once.Do(func() { close(s.release) }) }

func (s *stuck) tool(name string) server.ServerTool {
	return server.ServerTool{Tool: mcp.NewTool(name), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.entered.Add(1)
		<-s.release
		return mcp.NewToolResultText("too late"), nil
	}}
}

// callMany makes n calls of tool from conc goroutines over conn and counts
// the error codes of the results; a protocol error fails the test.
func callMany(t *testing.T, conn *testserver.Conn, tool string, n, conc int) map[string]int {
	t.Helper()
	var (
		mu    sync.Mutex
		codes = map[string]int{}
		next  atomic.Int64
		wg    sync.WaitGroup
	)
	for range conc {
		wg.Go(func() {
			for next.Add(1) <= int64(n) {
				res, err := conn.Call(context.Background(), tool, nil)
				mu.Lock()
				switch {
				case err != nil:
					codes["protocol error: "+err.Error()]++
				case !res.IsError:
					codes["success"]++
				default:
					info, _ := mcpgo.InfoOf(res)
					codes[info.Code]++
					if info.Code == "unavailable" && (info.RetryAfterSeconds < 1 || !strings.Contains(info.Message, "busy")) {
						codes["unavailable without retry-after"]++
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return codes
}

// Abandoned handlers used to pile up without limit: each call to a handler
// that ignores its context left two goroutines (and the request's session)
// behind after its timeout answered. The README's three-line form must now
// bound them with no bulkhead option at all.
func TestAbandonedHandlersAreBoundedByDefault(t *testing.T) {
	st := newStuck(t)
	var logs logbuf.Buffer
	s := server.NewMCPServer("weather", "1.0.0", attached(wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithTimeout(20*time.Millisecond))))
	s.AddTools(st.tool("hang"))
	conn := testserver.StartHTTP(t, s)

	runtime.GC()
	before := runtime.NumGoroutine()
	const calls = 3 * bulkheadPerTool
	codes := callMany(t, conn, "hang", calls, 16)
	grown := runtime.NumGoroutine() - before

	if codes["timeout"] != bulkheadPerTool || codes["unavailable"] != calls-bulkheadPerTool || len(codes) != 2 {
		t.Fatalf("want %d timeouts then fast unavailable results, got %v", bulkheadPerTool, codes)
	}
	if got := st.entered.Load(); got != bulkheadPerTool {
		t.Fatalf("the handler ran %d times; a refused call must not run it", got)
	}
	// Two goroutines per abandoned handler (it and its drain), plus slack
	// for the HTTP connections.
	if limit := 2*bulkheadPerTool + 40; grown > limit {
		t.Fatalf("goroutines grew by %d for %d calls, want at most %d", grown, calls, limit)
	}

	// Once they return, the slots are free again and each is logged.
	st.free()
	waitFor(t, "every abandoned handler's late line", func() bool {
		late, _ := logs.Find("msg", "tool finished after its call was answered; result dropped")
		return len(late) == bulkheadPerTool
	})
	// The call is admitted: the handler runs again. (Whether it returns
	// within the 20ms timeout is the machine's business, not the slot's.)
	res, err := conn.Call(t.Context(), "hang", nil)
	if info, _ := mcpgo.InfoOf(res); err != nil || info.Code == "unavailable" || st.entered.Load() != bulkheadPerTool+1 {
		t.Fatalf("a call after the handlers returned: %v %+v", err, res)
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestBulkheadLimitsPerToolAndInTotal(t *testing.T) {
	st := newStuck(t)
	var logs logbuf.Buffer
	conn := serve(t, &logs, []wrap.Option{wrap.WithBulkhead(wrap.Bulkhead{PerTool: 2, Total: 3, RetryAfter: 3 * time.Second})},
		st.tool("a"), st.tool("b"))

	// No timeout: the handlers stay running, holding their slots.
	var wg sync.WaitGroup
	for _, name := range []string{"a", "a", "b"} {
		wg.Go(func() {
			if res, err := conn.Call(context.Background(), name, nil); err != nil || res.IsError {
				t.Errorf("admitted call %s: %v %+v", name, err, res)
			}
		})
	}
	waitFor(t, "three running handlers", func() bool { return st.entered.Load() == 3 })

	for _, tc := range []struct{ tool, text string }{
		{"a", `tool "a" is busy: 2 of its calls are already running`},
		{"b", "the server is busy: 3 tool calls are already running"},
	} {
		// No slot frees before st.free() below: a refusal that waited for
		// one would never come, so getting it shows it did not wait.
		res, err := conn.Call(t.Context(), tc.tool, nil)
		if err != nil {
			t.Fatalf("a full bulkhead must answer with a result, not %v", err)
		}
		info, ok := mcpgo.InfoOf(res)
		if !ok || info.Code != "unavailable" || info.RetryAfterSeconds != 3 || !strings.Contains(info.Message, tc.text) ||
			!strings.Contains(info.Message, "retry after 3s") || info.SideEffects != "none" {
			t.Fatalf("refusal of %s: %+v", tc.tool, info)
		}
	}
	if got := st.entered.Load(); got != 3 {
		t.Fatalf("refused calls ran the handler: %d runs", got)
	}
	st.free()
	wg.Wait()
	if lines, _ := logs.Find("code", "unavailable"); len(lines) != 2 {
		t.Fatalf("want the two refusals logged as calls, got %v", lines)
	}
}

func TestBulkheadOverStdio(t *testing.T) {
	st := newStuck(t)
	w := wrap.New(wrap.WithBulkhead(wrap.Bulkhead{PerTool: 1}), wrap.WithTimeout(20*time.Millisecond))
	srv := mcptest.NewUnstartedServer(t)
	srv.AddTools(mcpgo.Tool(w, st.tool("hang").Tool, st.tool("hang").Handler))
	if err := srv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for i, want := range []string{"timeout", "unavailable", "unavailable"} {
		var req mcp.CallToolRequest
		req.Params.Name = "hang"
		res, err := srv.Client().CallTool(t.Context(), req)
		if info, _ := mcpgo.InfoOf(res); err != nil || info.Code != want {
			t.Fatalf("call %d: %v %+v, want %s", i, err, res, want)
		}
	}
	st.free()
}

// handlerGauge reads "mcpwrap.tool.handlers" for a tool and state.
func handlerGauge(t *testing.T, r *sdkmetric.ManualReader, tool, state string) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			sum, ok := m.Data.(metricdata.Sum[int64])
			if !ok || m.Name != "mcpwrap.tool.handlers" {
				continue
			}
			for _, dp := range sum.DataPoints {
				tv, _ := dp.Attributes.Value("gen_ai.tool.name")
				sv, _ := dp.Attributes.Value("mcpwrap.handler.state")
				if tv.AsString() == tool && sv.AsString() == state {
					return dp.Value
				}
			}
		}
	}
	return -1
}

func TestHandlerGaugeCountsRunningAndAbandoned(t *testing.T) {
	st := newStuck(t)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = mp.Shutdown(context.Background()) }()
	var logs logbuf.Buffer
	ob := obs.New(obs.WithMeterProvider(mp), obs.WithLogger(logs.Logger()), obs.WithoutTracing())
	s := server.NewMCPServer("weather", "1.0.0", attached(wrap.New(
		obstest.WithObserver(ob), wrap.ForTool("hang", wrap.WithTimeout(20*time.Millisecond)))))
	s.AddTools(st.tool("hang"), st.tool("wait"))
	conn := testserver.StartHTTP(t, s)

	for range 3 {
		if res, _ := conn.Call(t.Context(), "hang", nil); !res.IsError {
			t.Fatal("want a timeout")
		}
	}
	go func() { _, _ = conn.Call(context.Background(), "wait", nil) }()
	waitFor(t, "the running handler", func() bool { return st.entered.Load() == 4 })
	if a, r := handlerGauge(t, reader, "hang", "abandoned"), handlerGauge(t, reader, "wait", "running"); a != 3 || r != 1 {
		t.Fatalf("gauge: %d abandoned hang, %d running wait; want 3 and 1", a, r)
	}
	st.free()
	waitFor(t, "the gauge back at zero", func() bool {
		return handlerGauge(t, reader, "hang", "abandoned") == 0 && handlerGauge(t, reader, "wait", "running") == 0
	})
}

// bulkheadPerTool is Bulkhead.PerTool's documented default.
const bulkheadPerTool = 128

// A tool whose handler hangs, with one slot: the first call times out and
// leaves its handler running; the next is refused at once, handler not run.
func ExampleWithBulkhead() {
	release := make(chan struct{})
	search := mcpgo.Tool(wrap.New(), mcp.NewTool("search"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-release
		return mcp.NewToolResultText("late"), nil
	}, wrap.WithTimeout(10*time.Millisecond), wrap.WithBulkhead(wrap.Bulkhead{PerTool: 1}))
	defer close(release)

	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "search"}}
	for range 2 {
		res, _ := search.Handler(context.Background(), req)
		info, _ := mcpgo.InfoOf(res)
		fmt.Println(info.Code, info.RetryAfterSeconds)
		fmt.Println(info.Message)
	}
	// Output:
	// timeout 0
	// tool "search" timed out after 10ms; the operation may still complete upstream; not retried automatically because tool "search" is not marked read-only or idempotent: the operation may have happened, check before calling it again
	// unavailable 1
	// tool "search" is busy: 1 of its calls are already running or have timed out without finishing; retry after 1s; the request did not reach the upstream, so nothing was done
}
