package redislimit_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
	"github.com/mcpwrap/mcpwrap/wrap/limit/redislimit/internal/redistest"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// Figures of the stall test.
const (
	stallFor     = 5 * time.Second
	stallCallers = 4
	// stallBudget is the Limiter's default store budget.
	stallBudget = 250 * time.Millisecond
	// stallSlack is what a call may take beyond the budget: the HTTP round
	// trip and the server's work on a loaded 2-core machine (up to 200ms
	// there, with a load average of 10).
	stallSlack = 400 * time.Millisecond
)

// stallCall is one call of the stall test: when it started, how long its
// answer took and what it was.
type stallCall struct {
	began time.Time
	took  time.Duration
	code  string // "" for an allowed call
}

// TestStalledRedisCostsACallAtMostTheBudget: three replicas share one real
// Redis that is stopped (SIGSTOP: connections hang, nothing is refused)
// for 5s and continued (SIGCONT), while four callers keep calling through
// every replica. Every call overlapping the stall is answered within the
// Limiter's store budget (250ms by default, re-send included) plus the
// round trip; the store's 1s wait and its re-send used to make such calls
// wait 2s. Calls are answered normally again after the stall.
//
//	go test -count=1 -run TestStalledRedisCostsACallAtMostTheBudget -v ./wrap/limit/redislimit/
func TestStalledRedisCostsACallAtMostTheBudget(t *testing.T) {
	srv := redistest.Start(t)
	p := prefix(t)
	var logs logbuf.Buffer
	var us []string
	for range replicas {
		// A limit high enough that no call is rate limited.
		us = append(us, serveReplica(t, srv.Addr, p, limit.Rate{Limit: 100000, Per: time.Minute}, &logs))
	}
	var mu sync.Mutex
	var calls []stallCall
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range stallCallers {
		clients := newCaller(t, us, fmt.Sprintf("stall-%d", i)).clients
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				var req mcp.CallToolRequest
				req.Params.Name = "search"
				began := time.Now()
				res, err := clients[n%len(clients)].CallTool(ctx, req)
				took := time.Since(began)
				cancel()
				c := stallCall{began: began, took: took}
				switch info, isErr := mcpgo.InfoOf(res); {
				case err != nil:
					c.code = "no answer: " + err.Error()
				case !res.IsError:
				case isErr:
					c.code = info.Code
				default:
					c.code = "isError without structuredContent"
				}
				mu.Lock()
				calls = append(calls, c)
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	time.Sleep(500 * time.Millisecond)
	paused := time.Now()
	srv.Pause()
	time.Sleep(stallFor)
	srv.Resume()
	resumed := time.Now()
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()

	var during, after []time.Duration
	codes := map[string]int{}
	for _, c := range calls {
		switch {
		case c.began.Add(c.took).After(paused) && c.began.Before(resumed):
			during = append(during, c.took)
			codes[c.code]++
		case c.began.After(resumed.Add(stallBudget + stallSlack)):
			after = append(after, c.took)
			if c.code != "" {
				t.Errorf("a call after the stall: %q", c.code)
			}
		}
	}
	for code, n := range codes {
		if code != "" && code != "unavailable" && code != "rate_limited" {
			t.Errorf("%d calls during the stall answered %q", n, code)
		}
	}
	if len(during) == 0 || len(after) == 0 {
		t.Fatalf("%d calls during the stall, %d after it", len(during), len(after))
	}
	slices.Sort(during)
	slices.Sort(after)
	t.Logf("during the stall: %d calls (%d allowed, %d unavailable, %d rate_limited): median %v, slowest %v",
		len(during), codes[""], codes["unavailable"], codes["rate_limited"],
		during[len(during)/2].Round(time.Millisecond), during[len(during)-1].Round(time.Millisecond))
	t.Logf("after the stall: %d calls: median %v, slowest %v",
		len(after), after[len(after)/2].Round(time.Millisecond), after[len(after)-1].Round(time.Millisecond))
	if slowest := during[len(during)-1]; slowest > stallBudget+stallSlack {
		t.Errorf("the slowest call during the stall took %v, want at most %v (the store budget) + %v", slowest, stallBudget, stallSlack)
	}
}
