// Package soak_test drives the whole stack — wrap, validate, observe and
// upstream — with many real mcp-go clients over streamable HTTP against a
// real upstream that injects faults, and checks that no call ever fails
// silently.
//
// The short form runs in `go test ./...` (and so in CI). The long form is
// 100 000 calls at concurrency 64 with a 30% fault mix:
//
//	MCPWRAP_SOAK=long go test -run TestSoak -v -timeout 30m ./internal/soak/
package soak_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.uber.org/goleak"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
	"github.com/mcpwrap/mcpwrap/wrap/upstream"
)

// plan is the size of a run.
type plan struct {
	calls, concurrency int
	faultShare         float64
	heapSlackMiB       uint64
}

func planFromEnv() plan {
	if os.Getenv("MCPWRAP_SOAK") == "long" {
		return plan{calls: 100_000, concurrency: 64, faultShare: 0.30, heapSlackMiB: 64}
	}
	return plan{calls: 1_500, concurrency: 16, faultShare: 0.30, heapSlackMiB: 64}
}

// kind is one class of call and what its result must be.
type kind struct {
	name    string
	tool    string
	args    func(secret string) map[string]any
	fault   bool
	isError bool
	// codes the structured error may carry; empty for success or a
	// handler-set isError (no structured code).
	codes []string
	// maxAnswer, when set, bounds the size of the result as JSON.
	maxAnswer int
}

func forecastArgs(mode string) func(string) map[string]any {
	return func(secret string) map[string]any {
		return map[string]any{"city": "Rome", "days": 3, "mode": mode, "token": secret, "ref": secret}
	}
}

// untypedArgs go to tools that declare no argument struct: only a secret
// *name* (token) can tell observe what to redact there.
func untypedArgs(secret string) map[string]any {
	return map[string]any{"city": "Rome", "token": secret}
}

var kinds = []kind{
	{name: "valid", tool: "forecast", args: forecastArgs("ok")},
	{name: "valid_slow", tool: "forecast", args: forecastArgs("slow")},
	{name: "holder_backed", tool: "stable_forecast", args: func(string) map[string]any { return map[string]any{"city": "Oslo"} },
		// during an outage window the answer is a precise unavailable
		isError: false, codes: []string{"unavailable", "timeout"}},
	{name: "invalid_argument", tool: "forecast", fault: true, isError: true, codes: []string{"invalid_argument"},
		args: func(secret string) map[string]any {
			return map[string]any{"city": "Rome", "days": 30, "mode": "ok", "token": secret, "ref": secret}
		}},
	{name: "unknown_parameter", tool: "forecast", fault: true, isError: true, codes: []string{"invalid_argument"},
		args: func(secret string) map[string]any {
			return map[string]any{"cty": "Rome", "mode": "ok", "token": secret, "ref": secret}
		}},
	{name: "panic", tool: "explode", fault: true, isError: true, codes: []string{"internal"}, args: untypedArgs},
	{name: "nil_result", tool: "nothing", fault: true, isError: true, codes: []string{"internal"}, args: untypedArgs},
	{name: "handler_is_error", tool: "refuse", fault: true, isError: true, args: untypedArgs},
	// Retries share the call's deadline: one still waiting when it passes
	// ends as a precise timeout rather than the upstream's code.
	{name: "upstream_503", tool: "forecast", fault: true, isError: true, codes: []string{"unavailable", "timeout"}, args: forecastArgs("503")},
	{name: "upstream_429", tool: "forecast", fault: true, isError: true, codes: []string{"rate_limited", "timeout"}, args: forecastArgs("429")},
	{name: "upstream_reset", tool: "forecast", fault: true, isError: true, codes: []string{"unavailable", "timeout"}, args: forecastArgs("reset")},
	{name: "upstream_hang", tool: "forecast_hang", fault: true, isError: true, codes: []string{"timeout"}, args: forecastArgs("hang")},
	// A handler that ignores its context and does not return during the
	// run: its calls time out until its bulkhead is full, then are refused.
	{name: "abandoned", tool: "stuck", fault: true, isError: true, codes: []string{"timeout", "unavailable"}, args: untypedArgs},
	{name: "typed_nil_error", tool: "typed_nil", fault: true, isError: true, codes: []string{"internal"}, args: untypedArgs},
	{name: "nan_result", tool: "nan", fault: true, isError: true, codes: []string{"internal"}, args: untypedArgs},
	{name: "oversized_invalid", tool: "forecast", fault: true, isError: true, codes: []string{"invalid_argument"},
		maxAnswer: 16 << 10, args: oversizedArgs},
}

// oversizedArgs are invalid in bulk: thousands of unknown parameters, one
// of them with a name 64 KiB long, and a value out of range.
func oversizedArgs(secret string) map[string]any {
	m := map[string]any{"city": "Rome", "days": 30, "mode": "ok", "token": secret, "ref": secret,
		strings.Repeat("k", 64<<10): "x"}
	for i := range 3000 {
		m["unknown_parameter_"+strconv.Itoa(i)] = i
	}
	return m
}

// nilErr is an error type whose Error reads a field: a typed nil of it
// panics when printed.
type nilErr struct{ msg string }

func (e *nilErr) Error() string { return e.msg }

// faultyUpstream answers /forecast?mode=… as the mode says.
func faultyUpstream() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/forecast", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("mode") {
		case "slow":
			time.Sleep(20 * time.Millisecond)
		case "503":
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		case "429":
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		case "reset":
			if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
				_ = c.(*net.TCPConn).SetLinger(0)
				_ = c.Close()
			}
			return
		case "hang":
			<-r.Context().Done()
			return
		}
		_, _ = io.WriteString(w, `{"temp_c":21}`)
	})
	mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })
	return mux
}

type forecastIn struct {
	City  string `json:"city" validate:"required"`
	Days  int    `json:"days" validate:"omitempty,min=1,max=14"`
	Mode  string `json:"mode" validate:"required,oneof=ok slow 503 429 reset hang"`
	Token string `json:"token"`
	Ref   string `json:"ref" mcpwrap:"secret"`
}

// fetch GETs url and classifies the answer with errs.
func fetch(ctx context.Context, hc *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return errs.FromStatus("weather-api", resp.StatusCode, resp.Header)
}

// scanner checks every log line as it is written, keeping counts only, so a
// long run's memory does not grow with it.
type scanner struct {
	secret   string
	mu       sync.Mutex
	partial  []byte
	lines    int
	calls    int
	notJSON  int
	leaks    int
	outcomes map[string]int
	late     int      // handlers of the stuck tool that finished after their call was answered
	leaked   []string // the first few leaking lines, for the failure message
}

func (s *scanner) lateCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.late
}

// counts returns a snapshot: late lines (a handler finishing after its
// timeout) may still be arriving.
func (s *scanner) counts() (lines, calls, notJSON, leaks int, leaked []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lines, s.calls, s.notJSON, s.leaks, slices.Clone(s.leaked)
}

func (s *scanner) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		line := s.partial[:i]
		s.lines++
		if bytes.Contains(line, []byte(s.secret)) {
			s.leaks++
			if len(s.leaked) < 3 {
				s.leaked = append(s.leaked, string(line))
			}
		}
		var m struct {
			Msg     string `json:"msg"`
			Outcome string `json:"outcome"`
			Tool    string `json:"tool"`
		}
		if json.Unmarshal(line, &m) != nil {
			s.notJSON++
		} else if m.Msg == "tool call" {
			s.calls++
			s.outcomes[m.Outcome]++
		} else if strings.HasPrefix(m.Msg, "tool finished after its call was answered") && m.Tool == "stuck" {
			// Hung upstream calls end late too; only the stuck tool's
			// handlers are released at the end, one late line each.
			s.late++
		}
		s.partial = s.partial[i+1:]
	}
	s.partial = bytes.Clone(s.partial)
	return len(p), nil
}

// spanCheck counts ended spans and looks for the secret in everything a
// span carries, without keeping the spans.
type spanCheck struct {
	secret string
	calls  atomic.Int64
	leaks  atomic.Int64
}

func (c *spanCheck) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c *spanCheck) Shutdown(context.Context) error                  { return nil }
func (c *spanCheck) ForceFlush(context.Context) error                { return nil }
func (c *spanCheck) OnEnd(s sdktrace.ReadOnlySpan) {
	if strings.HasPrefix(s.Name(), "tools/call ") {
		c.calls.Add(1)
	}
	check := func(kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			if strings.Contains(kv.Value.Emit(), c.secret) {
				c.leaks.Add(1)
			}
		}
	}
	check(s.Attributes())
	for _, e := range s.Events() {
		check(e.Attributes)
		if strings.Contains(e.Name, c.secret) {
			c.leaks.Add(1)
		}
	}
	if strings.Contains(s.Status().Description, c.secret) || strings.Contains(s.Name(), c.secret) {
		c.leaks.Add(1)
	}
}

// wireCheck counts JSON-RPC errors in every response body the clients
// read, without keeping the bodies.
type wireCheck struct {
	next          http.RoundTripper
	jsonrpcErrors atomic.Int64
}

func (w *wireCheck) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	body, rerr := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	for _, msg := range testserver.Messages(testserver.Response{ContentType: resp.Header.Get("Content-Type"), Body: body}) {
		var m struct {
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(msg, &m) == nil && len(m.Error) > 0 && string(m.Error) != "null" {
			w.jsonrpcErrors.Add(1)
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return nil, rerr
	}
	return resp, nil
}

// tally is what the run saw per kind.
type tally struct {
	calls, asExpected, isError int
	codes                      map[string]int
	maxLatency                 time.Duration
}

func TestSoak(t *testing.T) {
	p := planFromEnv()
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var raw [12]byte
	for i := range raw {
		raw[i] = byte(rand.Uint32())
	}
	secret := "soak-" + hex.EncodeToString(raw[:])

	// Upstreams: one injecting faults per request, one that goes away and
	// comes back on the same port (outage windows) behind an upstream.Holder.
	faulty := testserver.StartRestartable(t, faultyUpstream())
	flaky := testserver.StartRestartable(t, faultyUpstream())
	plainHTTP := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer plainHTTP.CloseIdleConnections()
	holder := upstream.New("flaky-api",
		func(context.Context) (*http.Client, error) {
			return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}, nil
		},
		upstream.WithClose(func(c *http.Client) error { c.CloseIdleConnections(); return nil }),
		upstream.WithHealth(func(ctx context.Context, c *http.Client) error {
			return fetch(ctx, c, "http://"+flaky.Addr+"/health")
		}),
		upstream.WithPolicy(upstream.Policy{Backoff: 20 * time.Millisecond, MaxBackoff: 200 * time.Millisecond}),
	)
	defer holder.Close()

	// Telemetry: a recording SDK whose spans and log lines are checked as
	// they are produced.
	spans := &spanCheck{secret: secret}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	logs := &scanner{secret: secret, outcomes: map[string]int{}}
	ob := obs.New(obs.WithTracerProvider(tp), obs.WithMeterProvider(mp),
		obs.WithLogger(slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))

	// Calls that must not time out never come near it: on a 2-core machine
	// under -race, loaded by other builds, valid calls took up to 2.1s and
	// the oversized invalid ones 15.2s (from the client's side). No call
	// waits for it (the hung upstream has a tool of its own with a short
	// timeout, the stuck handler its own), so it costs nothing.
	const toolTimeout, hangTimeout = 2 * time.Minute, time.Second
	stuck := make(chan struct{})
	var unstick sync.Once
	release := func() { unstick.Do(func() { close(stuck) }) }
	defer release()
	w := wrap.New(obstest.WithObserver(ob), wrap.WithRetry(wrap.RetryPolicy{}), wrap.WithTimeout(toolTimeout),
		wrap.ForTool("forecast_hang", wrap.WithTimeout(hangTimeout)))
	readOnly := mcp.WithReadOnlyHintAnnotation(true)
	s := server.NewMCPServer("soak", "1.0.0", attached(w))
	forecast := func(ctx context.Context, _ mcp.CallToolRequest, in forecastIn) (*mcp.CallToolResult, error) {
		if err := fetch(ctx, plainHTTP, "http://"+faulty.Addr+"/forecast?mode="+in.Mode); err != nil {
			return nil, err
		}
		return mcp.NewToolResultText(in.City + ": 21°C"), nil
	}
	s.AddTools(
		mcpgo.Typed(w, mcp.NewTool("forecast", readOnly), forecast),
		mcpgo.Typed(w, mcp.NewTool("forecast_hang", readOnly), forecast),
		mcpgo.Tool(w, mcp.NewTool("stable_forecast", readOnly), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			err := holder.Do(ctx, func(ctx context.Context, c *http.Client) error {
				return fetch(ctx, c, "http://"+flaky.Addr+"/forecast?mode=ok")
			})
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(req.GetString("city", "?") + ": 18°C"), nil
		}),
		mcpgo.Tool(w, mcp.NewTool("explode"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var m map[string]int
			//lint:ignore SA5000 the panic is the point
			m["boom"]++
			return nil, nil
		}),
		mcpgo.Tool(w, mcp.NewTool("nothing"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, nil
		}),
		mcpgo.Tool(w, mcp.NewTool("refuse"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("this region is not covered"), nil
		}),
		mcpgo.Tool(w, mcp.NewTool("stuck"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-stuck
			return mcp.NewToolResultText("too late"), nil
		}, wrap.WithTimeout(50*time.Millisecond), wrap.WithBulkhead(wrap.Bulkhead{PerTool: 8})),
		mcpgo.Tool(w, mcp.NewTool("typed_nil"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var e *nilErr
			return nil, e
		}),
		mcpgo.Tool(w, mcp.NewTool("nan"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("21°C")},
				StructuredContent: map[string]any{"temp_c": math.NaN()}}, nil
		}),
	)
	url, stopServer, err := testserver.Listen(s)
	if err != nil {
		t.Fatal(err)
	}
	defer stopServer()

	// Clients: one real mcp-go client per worker, each with its own session
	// and an Authorization header carrying the secret.
	wires := &wireCheck{next: http.DefaultTransport.(*http.Transport).Clone()}
	hc := &http.Client{Transport: wires}
	defer hc.CloseIdleConnections()
	clients := make([]*client.Client, p.concurrency)
	for i := range clients {
		clients[i] = dial(t, url, hc, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + secret}))
	}

	// The schedule: 1-faultShare of calls are valid, the rest spread over
	// the fault kinds; a fixed seed keeps a failing run reproducible.
	var healthy, faults []int
	for i, k := range kinds {
		if k.fault {
			faults = append(faults, i)
		} else {
			healthy = append(healthy, i)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	schedule := make([]int, p.calls)
	for i := range schedule {
		if rng.Float64() < p.faultShare {
			schedule[i] = faults[rng.IntN(len(faults))]
		} else {
			schedule[i] = healthy[rng.IntN(len(healthy))]
		}
	}

	// Outage windows on the holder's upstream while the calls flow.
	stopOutages := make(chan struct{})
	var windows atomic.Int64
	outagesDone := make(chan struct{})
	go func() {
		defer close(outagesDone)
		for {
			select {
			case <-stopOutages:
				return
			case <-time.After(400 * time.Millisecond):
			}
			flaky.Stop()
			windows.Add(1)
			time.Sleep(150 * time.Millisecond)
			if err := flaky.Restart(); err != nil {
				t.Error(err)
				return
			}
		}
	}()

	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()

	// Far past every tool timeout: a call past it got no answer at all.
	const callDeadline = 5 * time.Minute
	type result struct {
		kind     int
		res      *mcp.CallToolResult
		err      error
		latency  time.Duration
		deadline bool
	}
	jobs := make(chan int)
	results := make(chan result, p.concurrency)
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() {
			for i := range jobs {
				k := kinds[schedule[i]]
				ctx, cancel := context.WithTimeout(context.Background(), callDeadline)
				var req mcp.CallToolRequest
				req.Params.Name = k.tool
				req.Params.Arguments = k.args(secret)
				t0 := time.Now()
				res, err := c.CallTool(ctx, req)
				lat := time.Since(t0)
				missed := ctx.Err() != nil
				cancel()
				results <- result{kind: schedule[i], res: res, err: err, latency: lat, deadline: missed}
			}
		})
	}
	go func() {
		for i := range schedule {
			jobs <- i
		}
		close(jobs)
		wg.Wait()
		close(results)
	}()

	tallies := make([]tally, len(kinds))
	var violations []string
	var protocolErrs, emptyResults, deadlineMisses, resultLeaks int
	violate := func(format string, args ...any) {
		if len(violations) < 20 {
			violations = append(violations, fmt.Sprintf(format, args...))
		}
	}
	for r := range results {
		k := kinds[r.kind]
		tl := &tallies[r.kind]
		if tl.codes == nil {
			tl.codes = map[string]int{}
		}
		tl.calls++
		tl.maxLatency = max(tl.maxLatency, r.latency)
		if r.deadline {
			deadlineMisses++
			violate("%s: no answer within %s", k.name, callDeadline)
			continue
		}
		if r.err != nil {
			protocolErrs++
			violate("%s: protocol/transport error: %v", k.name, r.err)
			continue
		}
		if r.res == nil || len(r.res.Content) == 0 {
			emptyResults++
			violate("%s: empty result", k.name)
			continue
		}
		b, _ := json.Marshal(r.res)
		if bytes.Contains(b, []byte(secret)) {
			resultLeaks++
			violate("%s: secret in the result: %.500s", k.name, b)
		}
		if k.maxAnswer > 0 && len(b) > k.maxAnswer {
			violate("%s: answer of %d bytes, want at most %d", k.name, len(b), k.maxAnswer)
		}
		info, hasInfo := mcpgo.InfoOf(r.res)
		if r.res.IsError {
			tl.isError++
			tl.codes[info.Code]++
		}
		ok := false
		switch {
		case k.name == "holder_backed":
			// success, or a precise transient error during an outage
			ok = !r.res.IsError || (hasInfo && contains(k.codes, info.Code))
		case !k.isError:
			ok = !r.res.IsError
		case len(k.codes) == 0:
			ok = r.res.IsError && !hasInfo
		default:
			ok = r.res.IsError && hasInfo && contains(k.codes, info.Code)
		}
		if ok {
			tl.asExpected++
		} else {
			violate("%s: unexpected result isError=%v info=%+v content=%v", k.name, r.res.IsError, info, r.res.Content)
		}
	}
	elapsed := time.Since(start)
	close(stopOutages)
	<-outagesDone

	// The abandoned handlers return now; each is logged as late.
	release()
	abandoned := tallies[slices.IndexFunc(kinds, func(k kind) bool { return k.name == "abandoned" })].codes["timeout"]
	for deadline := time.Now().Add(time.Minute); logs.lateCount() < abandoned && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if got := logs.lateCount(); got != abandoned {
		t.Errorf("%d abandoned handlers, %d late lines", abandoned, got)
	}

	for _, c := range clients {
		_ = c.Close()
	}
	hc.CloseIdleConnections()
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	st := holder.Stats()
	logLines, logCalls, logNotJSON, logLeaks, leaked := logs.counts()

	// One screen of summary.
	var sb strings.Builder
	tw := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "kind\tcalls\tas expected\tisError\tcodes\tmax latency\t\n")
	for i, k := range kinds {
		tl := tallies[i]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t\n", k.name, tl.calls, tl.asExpected, tl.isError, codes(tl.codes), tl.maxLatency.Round(time.Millisecond))
	}
	_ = tw.Flush()
	fmt.Fprintf(&sb, "\ncalls %d at concurrency %d in %s (%.0f calls/s), fault share %.0f%%\n",
		p.calls, p.concurrency, elapsed.Round(time.Millisecond), float64(p.calls)/elapsed.Seconds(), p.faultShare*100)
	fmt.Fprintf(&sb, "protocol/transport errors %d, JSON-RPC errors on the wire %d, empty results %d, deadline misses %d\n",
		protocolErrs, wires.jsonrpcErrors.Load(), emptyResults, deadlineMisses)
	fmt.Fprintf(&sb, "log lines %d (tool call lines %d, not JSON %d), tool spans %d\n", logLines, logCalls, logNotJSON, spans.calls.Load())
	fmt.Fprintf(&sb, "secret found in: results %d, log lines %d, spans %d\n", resultLeaks, logLeaks, spans.leaks.Load())
	fmt.Fprintf(&sb, "holder: outage windows %d, dials %d (first connect + reconnects), failed dials %d, broken %d\n",
		windows.Load(), st.Dials, st.FailedDials, st.Broken)
	fmt.Fprintf(&sb, "heap in use: %.1f MiB before, %.1f MiB after\n", mib(before.HeapAlloc), mib(after.HeapAlloc))
	t.Log("\n" + sb.String())

	for _, v := range violations {
		t.Error(v)
	}
	if protocolErrs+emptyResults+deadlineMisses > 0 || wires.jsonrpcErrors.Load() > 0 {
		t.Errorf("silent or protocol-level failures: %d protocol, %d JSON-RPC on the wire, %d empty, %d past deadline",
			protocolErrs, wires.jsonrpcErrors.Load(), emptyResults, deadlineMisses)
	}
	if logCalls != p.calls || logNotJSON != 0 {
		t.Errorf("want one JSON log line per call (%d), got %d tool call lines and %d non-JSON lines", p.calls, logCalls, logNotJSON)
	}
	if int(spans.calls.Load()) != p.calls {
		t.Errorf("want one span per call (%d), got %d", p.calls, spans.calls.Load())
	}
	if resultLeaks+logLeaks+int(spans.leaks.Load()) > 0 {
		t.Errorf("the planted secret leaked: %d results, %d log lines %q, %d spans", resultLeaks, logLeaks, leaked, spans.leaks.Load())
	}
	if st.Dials > windows.Load()+1 {
		t.Errorf("more than one redial per outage window: %d dials for %d windows", st.Dials, windows.Load())
	}
	if after.HeapAlloc > before.HeapAlloc+p.heapSlackMiB<<20 {
		t.Errorf("heap grew from %.1f to %.1f MiB", mib(before.HeapAlloc), mib(after.HeapAlloc))
	}
	_ = tp.Shutdown(context.Background())
	_ = mp.Shutdown(context.Background())
	stopServer()
	faulty.Stop()
	flaky.Stop()
	plainHTTP.CloseIdleConnections()
}

// dial starts and initializes a real mcp-go client (a session of its own)
// over hc.
func dial(tb testing.TB, url string, hc *http.Client, opts ...transport.StreamableHTTPCOption) *client.Client {
	tb.Helper()
	tr, err := transport.NewStreamableHTTP(url, append(opts, transport.WithHTTPBasicClient(hc))...)
	if err != nil {
		tb.Fatal(err)
	}
	c := client.NewClient(tr)
	if err := c.Start(context.Background()); err != nil {
		tb.Fatal(err)
	}
	if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{}); err != nil {
		tb.Fatal(err)
	}
	return c
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func codes(m map[string]int) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s:%d", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
