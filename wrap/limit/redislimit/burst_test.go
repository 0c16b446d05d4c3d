package redislimit_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
	"github.com/mcpwrap/mcpwrap/wrap/limit/redislimit/internal/redistest"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// Figures of the burst test.
const (
	burstCalls = 200
	burstLimit = 20
	burstRuns  = 10
)

// burn keeps every CPU of the process busy until stop is closed, so that
// the calls, the servers and Redis compete for the CPU as on a loaded
// machine.
func burn(stop <-chan struct{}) {
	for range runtime.GOMAXPROCS(0) {
		go func() {
			for x := 0; ; x++ {
				if x%1024 == 0 {
					select {
					case <-stop:
						return
					default:
					}
				}
			}
		}()
	}
}

// TestBurstOverReplicasNeverExceedsTheLimit: 200 concurrent calls of one
// credential over 3 replicas sharing a real Redis, with the CPUs kept
// busy, never allow more than the limit (20 an hour, so nothing refills
// during a run) in each of 10 runs, and no replica takes the burst for an
// outage. A call that ran out of the store budget (250ms) is refused as
// unavailable; when Redis took its token but the answer came too late
// for the re-send too, the run allows one call less, never one more. With
// the old defaults one slow Redis read (100ms wait, 20 pooled
// connections) turned the limiter to "fail open" and 24–26 calls got
// through; a 250ms budget without ratelimit.SlowOutage let 60 through.
//
//	go test -count=1 -run TestBurstOverReplicasNeverExceedsTheLimit -v ./wrap/limit/redislimit/
func TestBurstOverReplicasNeverExceedsTheLimit(t *testing.T) {
	addr := redistest.Addr(t)
	p := prefix(t)
	var us []string
	logs := make([]*logbuf.Buffer, replicas)
	for i := range logs {
		logs[i] = &logbuf.Buffer{}
		us = append(us, serveReplica(t, addr, p, limit.Rate{Limit: burstLimit, Per: time.Hour}, logs[i]))
	}
	for run := range burstRuns {
		token := fmt.Sprintf("burst-%d", run)
		clients := newCaller(t, us, token).clients
		stop := make(chan struct{})
		burn(stop)
		var mu sync.Mutex
		var allowed, denied, slow, other int
		var wg sync.WaitGroup
		start := make(chan struct{})
		began := time.Now()
		for i := range burstCalls {
			wg.Go(func() {
				<-start
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				var req mcp.CallToolRequest
				req.Params.Name = "search"
				res, err := clients[i%len(clients)].CallTool(ctx, req)
				mu.Lock()
				defer mu.Unlock()
				switch info, _ := mcpgo.InfoOf(res); {
				case err != nil:
					other++
					t.Errorf("call without an answer: %v", err)
				case !res.IsError:
					allowed++
				case info.Code == "rate_limited":
					denied++
				case info.Code == "unavailable" && info.RetryAfterSeconds > 0:
					slow++ // out of the store budget: refused with a retry, never let through
				default:
					other++
					t.Errorf("unexpected result %+v", info)
				}
			})
		}
		close(start)
		wg.Wait()
		close(stop)
		t.Logf("run %d: %d allowed, %d rate_limited, %d unavailable (out of the store budget), %d other of %d concurrent calls over %d replicas in %v",
			run, allowed, denied, slow, other, burstCalls, replicas, time.Since(began).Round(time.Millisecond))
		if allowed > burstLimit || allowed+slow < burstLimit {
			t.Errorf("run %d: %d calls allowed (%d unavailable), want at most %d, and fewer only by calls refused as unavailable", run, allowed, slow, burstLimit)
		}
		for i, l := range logs {
			if l := grepLines(l.String(), "rate-limit store failed"); l != "" {
				t.Errorf("run %d: replica %d: a burst was taken for an outage:\n%s", run, i, l)
			}
		}
	}
}
