package soak_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.uber.org/goleak"

	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestAbandonedHandlerProbe is the README's three-line form with a 200ms
// timeout in front of a handler that ignores its context and never returns,
// called over and over: each call is answered on time, and the abandoned
// handlers stay bounded by the default bulkhead instead of piling up (two
// goroutines and 28–54 KiB each, forever). The long form makes the 12 000
// calls the README reports:
//
//	MCPWRAP_SOAK=long go test -run TestAbandonedHandlerProbe -v ./internal/soak/
func TestAbandonedHandlerProbe(t *testing.T) {
	calls := 1_000
	if os.Getenv("MCPWRAP_SOAK") == "long" {
		calls = 12_000
	}
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	release := make(chan struct{})
	var released sync.Once
	free := func() { released.Do(func() { close(release) }) }
	defer free()

	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	s := server.NewMCPServer("probe", "1.0.0",
		attached(wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(200*time.Millisecond))))
	var entered atomic.Int64
	s.AddTool(mcp.NewTool("hang"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		entered.Add(1)
		<-release
		return mcp.NewToolResultText("never seen"), nil
	})
	url, stop, err := testserver.Listen(s)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	const conc = 16
	hc := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer hc.CloseIdleConnections()
	clients := make([]*client.Client, conc)
	for i := range clients {
		clients[i] = dial(t, url, hc)
	}
	runtime.GC()
	g0, rss0, mem0 := runtime.NumGoroutine(), rssMiB(), inUseMiB()

	var (
		next                    atomic.Int64
		timeouts, busy, other   atomic.Int64
		slowestBusy, slowestAll atomic.Int64
		wg                      sync.WaitGroup
	)
	start := time.Now()
	for _, c := range clients {
		wg.Go(func() {
			for next.Add(1) <= int64(calls) {
				var req mcp.CallToolRequest
				req.Params.Name = "hang"
				t0 := time.Now()
				res, err := c.CallTool(context.Background(), req)
				d := int64(time.Since(t0))
				info, _ := mcpgo.InfoOf(res)
				switch {
				case err != nil:
					other.Add(1)
					t.Errorf("protocol error: %v", err)
				case info.Code == "timeout":
					timeouts.Add(1)
				case info.Code == "unavailable" && info.RetryAfterSeconds > 0:
					busy.Add(1)
					setMax(&slowestBusy, d)
				default:
					other.Add(1)
					t.Errorf("unexpected result %+v", res)
				}
				setMax(&slowestAll, d)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	runtime.GC()
	g1, rss1, mem1 := runtime.NumGoroutine(), rssMiB(), inUseMiB()
	t.Logf("%d calls in %s: %d timeouts, %d refused busy (slowest refusal %s, slowest call %s), %d other; handlers started %d",
		calls, elapsed.Round(time.Millisecond), timeouts.Load(), busy.Load(),
		time.Duration(slowestBusy.Load()).Round(time.Millisecond), time.Duration(slowestAll.Load()).Round(time.Millisecond),
		other.Load(), entered.Load())
	t.Logf("goroutines %d → %d (+%d), RSS %.1f → %.1f MiB, heap+stacks in use %.1f → %.1f MiB", g0, g1, g1-g0, rss0, rss1, mem0, mem1)

	if timeouts.Load() != bulkheadPerTool || busy.Load() != int64(calls-bulkheadPerTool) {
		t.Errorf("want %d timeouts and the rest refused", bulkheadPerTool)
	}
	if limit := 2*bulkheadPerTool + 64; g1-g0 > limit {
		t.Errorf("goroutines grew by %d, want at most %d", g1-g0, limit)
	}
	// The Go runtime's count, not RSS: the race detector multiplies RSS.
	if mem1-mem0 > 16 {
		t.Errorf("heap and stacks grew by %.1f MiB, want at most 16", mem1-mem0)
	}

	free()
	for _, c := range clients {
		_ = c.Close()
	}
	hc.CloseIdleConnections()
	stop()
}

func setMax(m *atomic.Int64, v int64) {
	for {
		cur := m.Load()
		if v <= cur || m.CompareAndSwap(cur, v) {
			return
		}
	}
}

// inUseMiB is the memory the Go runtime holds for the heap and the
// goroutine stacks.
func inUseMiB() float64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return mib(m.HeapInuse + m.StackInuse)
}

// rssMiB reads the resident set size from /proc, or the Go runtime's view
// of the memory obtained from the OS where there is no /proc.
func rssMiB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for line := range bytes.Lines(b) {
			if rest, ok := bytes.CutPrefix(line, []byte("VmRSS:")); ok {
				kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(string(rest)), " kB"))
				if err == nil {
					return float64(kb) / 1024
				}
			}
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return mib(m.Sys)
}

// bulkheadPerTool is Bulkhead.PerTool's documented default.
const bulkheadPerTool = 128
