package redislimit_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/ratelimit"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
	"github.com/mcpwrap/mcpwrap/wrap/limit/redislimit"
	"github.com/mcpwrap/mcpwrap/wrap/limit/redislimit/internal/redistest"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// Figures of the multi-replica test.
const (
	replicas    = 3
	perWindow   = 20 // calls per minute per credential
	keys        = 4  // credentials, each calling through every replica
	callsPerKey = 3 * perWindow
)

// replica is one server process of examples/ratelimit.
type replica struct {
	url  string
	cmd  *exec.Cmd
	logs *logbuf.Buffer
}

// startReplicas builds examples/ratelimit and runs n of it on loopback,
// sharing the Redis at addr.
func startReplicas(t *testing.T, n int, addr string) []*replica {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ratelimit")
	build := exec.Command("go", "build", "-o", bin, "github.com/mcpwrap/mcpwrap/examples/ratelimit")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build examples/ratelimit: %v\n%s", err, out)
	}
	var out []*replica
	for range n {
		r := &replica{logs: &logbuf.Buffer{}}
		r.cmd = exec.Command(bin, "-listen", "127.0.0.1:0", "-redis", addr,
			"-limit", fmt.Sprint(perWindow), "-per", "1m",
			// A loaded machine can take more than the default 250ms budget
			// for a loopback round trip; the store would then refuse calls
			// as unavailable and the count would measure the load, not the
			// limit. A stopped Redis refuses at once, so the outage phase
			// is not slowed.
			"-store-budget", "2s")
		r.cmd.Stderr = r.logs
		stdout, err := r.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = r.cmd.Process.Kill()
			_ = r.cmd.Wait()
		})
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil {
			t.Fatalf("replica did not start: %v\n%s", err, r.logs.String())
		}
		r.url = strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
		out = append(out, r)
	}
	return out
}

// caller is one credential with a client on every replica.
type caller struct {
	clients []*client.Client
	next    int
}

// urls are the replicas' URLs.
func urls(reps []*replica) []string {
	var out []string
	for _, r := range reps {
		out = append(out, r.url)
	}
	return out
}

// serveReplica is one in-process replica at the defaults a user sets up: a
// real mcp-go server over streamable HTTP on loopback with one tool,
// search, its own go-redis client (ClientOptions) and Limiter
// (redislimit.Store) of rate, logging to logs. It returns the server's URL.
func serveReplica(t *testing.T, addr, prefix string, rate limit.Rate, logs *logbuf.Buffer) string {
	t.Helper()
	rdb := redis.NewClient(redislimit.ClientOptions(addr))
	t.Cleanup(func() { _ = rdb.Close() })
	lim := limit.New(rate, limit.WithLogger(logs.Logger()), redislimit.Store(rdb, redislimit.WithPrefix(prefix)))
	return testserver.ServeLimitedSearch(t, lim)
}

// newCaller connects a client for token to each of the replicas at urls.
func newCaller(t *testing.T, urls []string, token string) *caller {
	t.Helper()
	c := &caller{}
	for _, u := range urls {
		c.clients = append(c.clients, testserver.Connect(t, u, map[string]string{"Authorization": "Bearer " + token}))
	}
	return c
}

// tally is what a round of calls came to.
type tally struct {
	allowed, denied, unavailable, other int
	slowest                             time.Duration
}

// call makes one call through the next replica, round robin.
func (c *caller) call(t *testing.T) (res *mcp.CallToolResult, took time.Duration) {
	cl := c.clients[c.next%len(c.clients)]
	c.next++
	var req mcp.CallToolRequest
	req.Params.Name = "search"
	req.Params.Arguments = map[string]any{"q": "x"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	res, err := cl.CallTool(ctx, req)
	took = time.Since(start)
	if err != nil {
		t.Errorf("call got no answer: %v", err)
		return nil, took
	}
	return res, took
}

// round makes n calls per caller, callers in parallel.
func round(t *testing.T, callers []*caller, n int) []tally {
	out := make([]tally, len(callers))
	var wg sync.WaitGroup
	for i, c := range callers {
		wg.Go(func() {
			for range n {
				res, took := c.call(t)
				out[i].slowest = max(out[i].slowest, took)
				switch info, isErr := mcpgo.InfoOf(res); {
				case res == nil:
					out[i].other++
				case !res.IsError:
					out[i].allowed++
				case isErr && info.Code == "rate_limited":
					out[i].denied++
				case isErr && info.Code == "unavailable" && info.RetryAfterSeconds > 0:
					out[i].unavailable++
				default:
					out[i].other++
					t.Errorf("unexpected result %+v", info)
				}
			}
		})
	}
	wg.Wait()
	return out
}

func callersFor(t *testing.T, reps []*replica, phase string) []*caller {
	out := make([]*caller, keys)
	for i := range out {
		out[i] = newCaller(t, urls(reps), fmt.Sprintf("%s-%d", phase, i))
	}
	return out
}

// checkLimit asserts that each credential got its limit across the
// replicas: at least perWindow calls, and no more than the bucket refilled
// during the round (one call per 3s at 20 per minute) plus one.
func checkLimit(t *testing.T, phase string, got []tally, took time.Duration) {
	t.Helper()
	refill := int(took / (time.Minute / perWindow))
	t.Logf("%s: %d credentials × %d calls in %v (tolerance: +%d for the refill during the round, +1)",
		phase, keys, callsPerKey, took.Round(time.Millisecond), refill)
	for i, g := range got {
		t.Logf("%s: credential %d: %d allowed, %d rate_limited, %d other of %d calls over %d replicas",
			phase, i, g.allowed, g.denied, g.other, callsPerKey, replicas)
		if g.allowed < perWindow || g.allowed > perWindow+refill+1 || g.other != 0 {
			t.Errorf("%s: credential %d: %d allowed, want %d..%d (limit %d per minute across all replicas)",
				phase, i, g.allowed, perWindow, perWindow+refill+1, perWindow)
		}
	}
}

// TestReplicas runs three server processes (examples/ratelimit) sharing
// one real Redis, with every credential's calls spread round robin over
// them: the limit per credential holds across the replicas. Then Redis is
// stopped: every call still gets an answer (fail open), and each replica
// logs the failure once. Redis restarts empty and the replicas recover by
// themselves: the limit holds again.
//
//	go test -count=1 -run TestReplicas -v ./wrap/limit/redislimit/
func TestReplicas(t *testing.T) {
	srv := redistest.Start(t)
	reps := startReplicas(t, replicas, srv.Addr)

	before := callersFor(t, reps, "before")
	start := time.Now()
	got := round(t, before, callsPerKey)
	checkLimit(t, "shared limit", got, time.Since(start))
	for i, r := range reps {
		if l := grepLines(r.logs.String(), "rate-limit store"); l != "" {
			t.Errorf("replica %d: Redis failed while up:\n%s", i, l)
		}
	}

	srv.Stop()
	during := callersFor(t, reps, "during")
	got = round(t, during, callsPerKey)
	var slowest time.Duration
	refused := 0
	for i, g := range got {
		slowest = max(slowest, g.slowest)
		refused += g.unavailable
		t.Logf("redis down: credential %d: %d allowed, %d rate_limited, %d unavailable, %d without an answer", i, g.allowed, g.denied, g.unavailable, g.other)
		if g.allowed+g.unavailable != callsPerKey {
			t.Errorf("redis down: credential %d: %d of %d calls allowed, want all but the few before the outage was declared (fail open, %d per replica, the rate of each replica)",
				i, g.allowed, callsPerKey, callsPerKey/replicas)
		}
	}
	// Until ratelimit.OutageAfter calls in a row failed, a failure is one call's:
	// it is refused with a retry rather than let through unchecked.
	if refused > replicas*(ratelimit.OutageAfter-1) {
		t.Errorf("redis down: %d calls refused as unavailable, want at most %d (the failures before the outage was declared)", refused, replicas*(ratelimit.OutageAfter-1))
	}
	t.Logf("redis down: slowest answer %v", slowest)
	for i, r := range reps {
		if n := strings.Count(r.logs.String(), "rate-limit store failed"); n != 1 {
			t.Errorf("replica %d logged the failure %d times, want once", i, n)
		}
	}

	srv.Restart()
	deadline := time.Now().Add(10 * time.Second)
	probe := callersFor(t, reps, "probe")
	for i, r := range reps {
		for !strings.Contains(r.logs.String(), "answers again") {
			if time.Now().After(deadline) {
				t.Fatalf("replica %d did not recover:\n%s", i, r.logs.String())
			}
			for _, c := range probe {
				c.call(t)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	t.Logf("recovered %v after the restart", 10*time.Second-time.Until(deadline))
	after := callersFor(t, reps, "after")
	start = time.Now()
	got = round(t, after, callsPerKey)
	checkLimit(t, "after restart", got, time.Since(start))
	for i, r := range reps {
		if r.cmd.ProcessState != nil {
			t.Errorf("replica %d exited: %v", i, r.cmd.ProcessState)
		}
	}
}

func grepLines(s, sub string) string {
	var out []string
	for l := range strings.Lines(s) {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// TestOutageLogIsJSONLines: while Redis is down, a replica's stderr stays
// one JSON object per line. go-redis's own lines (one per failed dial)
// used to be printed as text between them.
func TestOutageLogIsJSONLines(t *testing.T) {
	srv := redistest.Start(t)
	reps := startReplicas(t, 1, srv.Addr)
	c := newCaller(t, urls(reps), "json")
	if res, _ := c.call(t); res == nil || res.IsError {
		t.Fatalf("before the outage: %+v", res)
	}
	srv.Stop()
	// Calls for three retry intervals of the store (1s each, the default): each interval, one
	// call dials the stopped Redis.
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		// Fail open is bounded (rate_limited past the local limit), and
		// refuses the calls before the outage is declared (unavailable).
		res, _ := c.call(t)
		if info, _ := mcpgo.InfoOf(res); res == nil || res.IsError && info.Code != "rate_limited" && info.Code != "unavailable" {
			t.Fatalf("during the outage (fail open): %+v", res)
		}
	}
	out := reps[0].logs.String()
	var text []string
	for l := range strings.Lines(out) {
		if !json.Valid([]byte(l)) {
			text = append(text, l)
		}
	}
	if len(text) != 0 {
		t.Fatalf("%d of %d stderr lines are not JSON during the outage:\n%s", len(text), strings.Count(out, "\n"), strings.Join(text, ""))
	}
	if n := strings.Count(out, "rate-limit store failed"); n != 1 {
		t.Errorf("the outage logged %d times, want once:\n%s", n, out)
	}
}
