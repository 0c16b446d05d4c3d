package mcpgo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/rawrpc"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// cacheServer is a real mcp-go server over streamable HTTP with w attached
// and a read-only tool "search" whose runs are counted; each run takes
// delay and answers with the run's number.
func cacheServer(t *testing.T, w *wrap.Wrapper, delay time.Duration, runs *atomic.Int64) (*server.MCPServer, *cacheClient) {
	t.Helper()
	s := server.NewMCPServer("cache", "1.0.0")
	mcpgo.Attach(s, w)
	s.AddTool(mcp.NewTool("search", mcp.WithReadOnlyHintAnnotation(true)), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		n := runs.Add(1)
		time.Sleep(delay)
		return mcp.NewToolResultText(fmt.Sprint("run ", n)), nil
	})
	return s, startCacheClient(t, s)
}

// cacheClient is a real mcp-go client of a server over streamable HTTP,
// sending a credential: a modern client has no session, and a call with
// neither is not cached (its caller cannot be told apart from others).
type cacheClient struct{ cl *client.Client }

func startCacheClient(t *testing.T, s *server.MCPServer) *cacheClient {
	t.Helper()
	url, stop, err := testserver.Listen(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return &cacheClient{testserver.Connect(t, url, map[string]string{"Authorization": "Bearer t1"})}
}

func (c *cacheClient) Call(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.Arguments = tool, args
	return c.cl.CallTool(ctx, req)
}

func (c *cacheClient) CallRaw(t *testing.T, tool, args string) *mcp.CallToolResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name, req.Params.RawArguments = tool, json.RawMessage(args)
	r, err := c.cl.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("call %s %s: %v", tool, args, err)
	}
	return r
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// cacheMeta is the result's _meta "mcpwrap/cache", nil when it has none.
func cacheMeta(r *mcp.CallToolResult) map[string]any {
	if r.Meta == nil {
		return nil
	}
	m, _ := r.Meta.AdditionalFields["mcpwrap/cache"].(map[string]any)
	return m
}

func TestCacheRunsAHundredIdenticalCallsOnce(t *testing.T) {
	var runs atomic.Int64
	logs := new(logbuf.Buffer)
	_, c := cacheServer(t, wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithCache(wrap.Cache{})), 200*time.Millisecond, &runs)
	adaptercases.CheckHundredCallsRunOnce(t, func() (string, bool) {
		r, err := c.Call(context.Background(), "search", map[string]any{"q": "rome"})
		if err != nil {
			return err.Error(), false
		}
		return text(r), !r.IsError
	}, &runs)
	out := logs.String()
	if n := strings.Count(out, `"cache":"miss"`); n != 1 {
		t.Errorf("%d misses logged, want 1", n)
	}
	if n := strings.Count(out, `"cache":"joined"`) + strings.Count(out, `"cache":"hit"`); n != 99 {
		t.Errorf("%d joined or hit logged, want 99", n)
	}
}

func TestCacheHitsWhateverTheKeyOrderAndNumberForm(t *testing.T) {
	var runs atomic.Int64
	_, c := cacheServer(t, wrap.New(wrap.WithCache(wrap.Cache{})), 0, &runs)
	first := c.CallRaw(t, "search", `{"q":"rome","days":2,"opts":{"a":1,"b":[1,2]}}`)
	second := c.CallRaw(t, "search", `{"opts":{"b":[1.0,2e0],"a":1},"days":2.0, "q":"rome"}`)
	if runs.Load() != 1 || text(second) != text(first) {
		t.Fatalf("runs = %d, answers %q and %q; want one run", runs.Load(), text(first), text(second))
	}
	if cacheMeta(first) != nil {
		t.Errorf("the first answer carries %v", cacheMeta(first))
	}
	if m := cacheMeta(second); m == nil || m["age_seconds"] != float64(0) {
		t.Errorf("the cached answer's _meta = %v, want age_seconds 0", m)
	}
	c.CallRaw(t, "search", `{"q":"rome","days":3,"opts":{"a":1,"b":[1,2]}}`)
	if runs.Load() != 2 {
		t.Fatalf("other arguments ran %d times in all, want 2", runs.Load())
	}
}

func TestCacheNeverKeepsAFailure(t *testing.T) {
	var runs atomic.Int64
	s := server.NewMCPServer("cache", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithCache(wrap.Cache{})))
	s.AddTool(mcp.NewTool("flaky", mcp.WithReadOnlyHintAnnotation(true)), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		switch runs.Add(1) {
		case 1:
			return nil, errs.New(errs.NotFound, "no such city")
		case 2:
			return mcp.NewToolResultError("upstream said no"), nil
		}
		return mcp.NewToolResultText("sunny"), nil
	})
	c := startCacheClient(t, s)
	for i, want := range []string{"error", "error", "sunny", "sunny"} {
		r := c.CallRaw(t, "flaky", `{"city":"rome"}`)
		if got := map[bool]string{true: "error", false: text(r)}[r.IsError]; got != want {
			t.Fatalf("call %d = %q, want %q", i+1, got, want)
		}
	}
	if runs.Load() != 3 {
		t.Fatalf("runs = %d, want 3 (the two failures not kept, the success kept)", runs.Load())
	}
}

func TestCacheExpiresAfterTTL(t *testing.T) {
	var runs atomic.Int64
	_, c := cacheServer(t, wrap.New(wrap.WithCache(wrap.Cache{TTL: 150 * time.Millisecond})), 0, &runs)
	c.CallRaw(t, "search", `{"q":"x"}`)
	c.CallRaw(t, "search", `{"q":"x"}`)
	time.Sleep(200 * time.Millisecond)
	if r := c.CallRaw(t, "search", `{"q":"x"}`); text(r) != "run 2" || cacheMeta(r) != nil {
		t.Fatalf("after the TTL: %q %v, want a new run", text(r), cacheMeta(r))
	}
}

func TestCacheForgetsWhenTheToolListChanges(t *testing.T) {
	var runs atomic.Int64
	w := wrap.New(wrap.WithCache(wrap.Cache{}))
	s, c := cacheServer(t, w, 0, &runs)
	c.CallRaw(t, "search", `{"q":"x"}`)
	c.CallRaw(t, "search", `{"q":"x"}`)
	s.AddTool(mcp.NewTool("other"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	if r := c.CallRaw(t, "search", `{"q":"x"}`); text(r) != "run 2" {
		t.Fatalf("after AddTool: %q, want a new run", text(r))
	}
	s.DeleteTools("other")
	if r := c.CallRaw(t, "search", `{"q":"x"}`); text(r) != "run 3" {
		t.Fatalf("after DeleteTools: %q, want a new run", text(r))
	}
	w.Forget(context.Background(), "search")
	if r := c.CallRaw(t, "search", `{"q":"x"}`); text(r) != "run 4" {
		t.Fatalf("after Forget: %q, want a new run", text(r))
	}
	if r := c.CallRaw(t, "search", `{"q":"x"}`); text(r) != "run 4" {
		t.Fatalf("then: %q, want the kept run 4", text(r))
	}
}

// payServer serves "pay", a tool that must not run twice (Join), with the
// timeout given; its handler counts its runs in runs and takes the time
// given, ignoring its context.
func payServer(t *testing.T, timeout, takes time.Duration, runs *atomic.Int64) *cacheClient {
	t.Helper()
	s := server.NewMCPServer("cache", "1.0.0")
	w := wrap.New(wrap.WithTimeout(timeout))
	mcpgo.Attach(s, w)
	s.AddTools(mcpgo.Tool(w, mcp.NewTool("pay", mcp.WithString("to")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		time.Sleep(takes)
		return mcp.NewToolResultText("paid"), nil
	}, wrap.WithCache(wrap.Cache{Join: true})))
	return startCacheClient(t, s)
}

// TestCacheGivesATimedOutCallsAnswerToItsRepeat: a tool that must not run
// twice (Join) times out; its repeat joins the handler still running and
// gets its answer, and a later repeat within the window gets it too.
func TestCacheGivesATimedOutCallsAnswerToItsRepeat(t *testing.T) {
	var runs atomic.Int64
	c := payServer(t, 300*time.Millisecond, 450*time.Millisecond, &runs)
	if r := c.CallRaw(t, "pay", `{"to":"bob"}`); !r.IsError || !strings.Contains(text(r), "timed out") {
		t.Fatalf("first call: %q, want a timeout", text(r))
	}
	r := c.CallRaw(t, "pay", `{"to":"bob"}`)
	if r.IsError || text(r) != "paid" || cacheMeta(r)["joined"] == nil {
		t.Fatalf("repeat: %q %v, want the first call's answer, joined", text(r), cacheMeta(r))
	}
	if r := c.CallRaw(t, "pay", `{"to":"bob"}`); text(r) != "paid" || runs.Load() != 1 {
		t.Fatalf("repeat within the window: %q, runs %d; want the kept answer and one run", text(r), runs.Load())
	}
}

// TestCacheRefusesAHitToACallerWhoLostTheScope: the cache sits inside
// authorization.
func TestCacheRefusesAHitToACallerWhoLostTheScope(t *testing.T) {
	var runs atomic.Int64
	s := server.NewMCPServer("cache", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithCache(wrap.Cache{ByScopes: true}),
		wrap.WithAuthorization(authz.Policy{Tools: map[string][]string{"search": {"read"}}, StepUp: true})))
	s.AddTool(mcp.NewTool("search", mcp.WithReadOnlyHintAnnotation(true)), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return mcp.NewToolResultText("secret"), nil
	})
	base := bearerServer(t, s, func(token string) authz.Caller {
		if token == "reader" {
			return authz.Caller{Subject: "alice", Scopes: []string{"read"}}
		}
		return authz.Caller{Subject: "alice"}
	})
	if got := postCall(t, base, "reader", "search", `{"q":"x"}`); got != "secret" {
		t.Fatalf("with the scope: %q", got)
	}
	if got := postCall(t, base, "lost", "search", `{"q":"x"}`); got == "secret" || runs.Load() != 1 {
		t.Fatalf("without the scope: %q (runs %d), want a refusal", got, runs.Load())
	}
}

// TestCacheNeverCrossesCallers: a thousand callers ask the same question
// twice; each gets the answer made for it.
func TestCacheNeverCrossesCallers(t *testing.T) {
	var runs atomic.Int64
	s := server.NewMCPServer("cache", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithCache(wrap.Cache{})))
	s.AddTool(mcp.NewTool("whoami", mcp.WithReadOnlyHintAnnotation(true)), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		c, _ := authz.FromContext(ctx)
		return mcp.NewToolResultText(c.Subject), nil
	})
	base := bearerServer(t, s, func(token string) authz.Caller { return authz.Caller{Subject: token} })
	const callers = 1000
	var crossed atomic.Int64
	var wg sync.WaitGroup
	work := make(chan int)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				who := fmt.Sprint("user-", i)
				for range 2 {
					if got := postCall(t, base, who, "whoami", `{"q":"same"}`); got != who {
						crossed.Add(1)
					}
				}
			}
		}()
	}
	for i := range callers {
		work <- i
	}
	close(work)
	wg.Wait()
	if crossed.Load() != 0 || runs.Load() != callers {
		t.Fatalf("%d answers crossed callers, %d runs; want 0 and %d (the repeats hit)", crossed.Load(), runs.Load(), callers)
	}
}

// bearerServer serves s statelessly behind authz.RequireBearer with a
// verifier that makes of each token the caller id says.
func bearerServer(t *testing.T, s *server.MCPServer, id func(token string) authz.Caller) string {
	t.Helper()
	verify := func(_ context.Context, token string, _ *http.Request) (authz.Caller, error) { return id(token), nil }
	srv := httptest.NewServer(authz.RequireBearer(verify, authz.Bearer{})(server.NewStreamableHTTPServer(s, server.WithStateLess(true))))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// postCall sends one tools/call with the bearer token and returns the
// result's text, or "refused: …" for an error result or a JSON-RPC error.
func postCall(t *testing.T, url, token, tool, args string) string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}`
	status, s := rawrpc.Post(t, url, token, []byte(body))
	if status == 0 {
		t.Errorf("post: %s", s)
		return ""
	}
	if i := strings.Index(s, "data: "); i >= 0 {
		s = strings.TrimSpace(s[i+6:])
	}
	var m struct {
		Result *mcp.CallToolResult `json:"result"`
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return "unreadable: " + s
	}
	switch {
	case m.Error != nil:
		return "refused: " + m.Error.Message
	case m.Result == nil:
		return "no result"
	case m.Result.IsError:
		return "refused: " + text(m.Result)
	}
	return text(m.Result)
}

func TestCacheKeepsAResourceRead(t *testing.T) {
	var runs atomic.Int64
	s := server.NewMCPServer("cache", "1.0.0", server.WithResourceCapabilities(false, true))
	w := wrap.New(wrap.WithCache(wrap.Cache{}))
	mcpgo.Attach(s, w)
	s.AddResource(mcp.NewResource("file:///notes", "notes"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: "file:///notes", Text: fmt.Sprint("run ", runs.Add(1))}}, nil
	})
	c := startCacheClient(t, s)
	read := func() (string, map[string]any) {
		t.Helper()
		var req mcp.ReadResourceRequest
		req.Params.URI = "file:///notes"
		r, err := c.cl.ReadResource(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		tc := r.Contents[0].(mcp.TextResourceContents)
		m, _ := tc.Meta["mcpwrap/cache"].(map[string]any)
		return tc.Text, m
	}
	read()
	if text, m := read(); text != "run 1" || m == nil {
		t.Fatalf("second read: %q %v, want the kept contents with their age", text, m)
	}
	s.DeleteResources("file:///gone") // no change: nothing is dropped
	s.AddResource(mcp.NewResource("file:///other", "other"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return nil, nil
	})
	if text, _ := read(); text != "run 2" {
		t.Fatalf("after AddResource: %q, want a new read", text)
	}
}

// TestCacheNeverRunsATimedOutCallTwice: while the first call's handler
// still runs after its timeout, a repeat that times out waiting is told so
// and does not run it; the next repeat gets its answer.
func TestCacheNeverRunsATimedOutCallTwice(t *testing.T) {
	var runs atomic.Int64
	c := payServer(t, 400*time.Millisecond, time.Second, &runs)
	c.CallRaw(t, "pay", `{"to":"bob"}`)
	if r := c.CallRaw(t, "pay", `{"to":"bob"}`); !r.IsError || !strings.Contains(text(r), "was not run again") ||
		!strings.Contains(text(r), "still running after its own timeout") {
		t.Fatalf("repeat while it runs: %q, want a timeout that says it was not run again", text(r))
	}
	if r := c.CallRaw(t, "pay", `{"to":"bob"}`); text(r) != "paid" || runs.Load() != 1 {
		t.Fatalf("next repeat: %q, runs %d; want the first call's answer, one run", text(r), runs.Load())
	}
}

func TestCacheSaysHitOrMissOnTheSpan(t *testing.T) {
	var runs atomic.Int64
	spans := tracetest.NewSpanRecorder()
	_, c := cacheServer(t, wrap.New(wrap.WithCache(wrap.Cache{}),
		wrap.WithTelemetry(observe.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))))), 0, &runs)
	c.CallRaw(t, "search", `{"q":"x"}`)
	c.CallRaw(t, "search", `{"q":"x"}`)
	var got []string
	for _, sp := range spans.Ended() {
		for _, a := range sp.Attributes() {
			if a.Key == "mcpwrap.cache" {
				got = append(got, a.Value.AsString())
			}
		}
	}
	if strings.Join(got, ",") != "miss,hit" {
		t.Fatalf("span attributes mcpwrap.cache = %v, want miss, hit", got)
	}
}

// TestCacheForOneToolThroughForTool: wrap.ForTool gives one tool its own
// Cache — an unannotated tool declared read-only is kept, and the
// Wrapper's other tools are not.
func TestCacheForOneToolThroughForTool(t *testing.T) {
	var runs, other atomic.Int64
	w := wrap.New(wrap.ForTool("lookup", wrap.WithCache(wrap.Cache{ReadOnly: true, TTL: time.Minute})))
	s := server.NewMCPServer("cache", "1.0.0")
	mcpgo.Attach(s, w)
	s.AddTool(mcp.NewTool("lookup"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(fmt.Sprint("run ", runs.Add(1))), nil
	})
	s.AddTool(mcp.NewTool("other", mcp.WithReadOnlyHintAnnotation(true)), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(fmt.Sprint("run ", other.Add(1))), nil
	})
	c := startCacheClient(t, s)
	for range 3 {
		c.CallRaw(t, "lookup", `{"q":"rome"}`)
		c.CallRaw(t, "other", `{"q":"rome"}`)
	}
	if runs.Load() != 1 || other.Load() != 3 {
		t.Fatalf("lookup ran %d times, other %d; want 1 (its own cache) and 3 (none)", runs.Load(), other.Load())
	}
}

// TestCacheDropsKeptAnswersWhenAToolThatMayWriteRuns: mcp-filesystem-server
// retrofitted with the cache read a file's old content after writing it
// (read_file is read-only, write_file changes what it reads, and no list
// changes). A call of a tool that is not read-only now drops every kept
// answer; a read that was in flight when a write ended keeps its answer
// for its own caller only; a read after the write never joins it.
func TestCacheDropsKeptAnswersWhenAToolThatMayWriteRuns(t *testing.T) {
	var content atomic.Value
	content.Store("v1")
	var reads atomic.Int64
	gate := make(chan struct{}, 1)
	gate <- struct{}{} // the first read runs at once
	s := server.NewMCPServer("fs", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithCache(wrap.Cache{TTL: time.Minute})))
	s.AddTool(mcp.NewTool("read_file", mcp.WithReadOnlyHintAnnotation(true)), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		v := content.Load().(string)
		reads.Add(1)
		<-gate
		return mcp.NewToolResultText(v), nil
	})
	s.AddTool(mcp.NewTool("write_file"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		content.Store(req.GetString("v", ""))
		return mcp.NewToolResultText("ok"), nil
	})
	c := startCacheClient(t, s)
	readPath := func(path string) string { return text(c.CallRaw(t, "read_file", `{"path":"`+path+`"}`)) }
	read := func() string { return readPath("a") }

	if got := read(); got != "v1" {
		t.Fatalf("first read %q", got)
	}
	if got := read(); got != "v1" || reads.Load() != 1 {
		t.Fatalf("second read %q after %d runs, want a hit", got, reads.Load())
	}
	c.CallRaw(t, "write_file", `{"v":"v2"}`)
	gate <- struct{}{}
	if got := read(); got != "v2" || reads.Load() != 2 {
		t.Fatalf("read after the write: %q after %d runs, want v2 from a new run", got, reads.Load())
	}

	// A read in flight while a write ends: its answer is its own.
	inFlight := make(chan string)
	go func() { inFlight <- readPath("b") }()
	for reads.Load() != 3 {
		time.Sleep(time.Millisecond)
	}
	c.CallRaw(t, "write_file", `{"v":"v3"}`)
	gate <- struct{}{}
	if got := <-inFlight; got != "v2" {
		t.Fatalf("the read in flight got %q, want what it read (v2)", got)
	}
	gate <- struct{}{}
	if got := readPath("b"); got != "v3" || reads.Load() != 4 {
		t.Fatalf("read after the second write: %q after %d runs, want v3 from a new run", got, reads.Load())
	}
}

// The write rule on every cache and every path (found by review): a cache
// given only through ForTool was never cleared, by writes or by list
// changes (the Wrapper had no cache of its own), and a write run as a
// task went around the cache layer.

// TestCacheOfOneToolIsClearedByWritesAndListChanges: a read-only tool's
// cache given through ForTool, a write of another tool, then a change of
// the tool list: each makes the next read run again.
func TestCacheOfOneToolIsClearedByWritesAndListChanges(t *testing.T) {
	var content atomic.Value
	content.Store("v1")
	var reads atomic.Int64
	s := server.NewMCPServer("fs", "1.0.0", server.WithToolCapabilities(true))
	mcpgo.Attach(s, wrap.New(wrap.ForTool("read_file", wrap.WithCache(wrap.Cache{ReadOnly: true, TTL: time.Minute}))))
	s.AddTool(mcp.NewTool("read_file"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		reads.Add(1)
		return mcp.NewToolResultText(content.Load().(string)), nil
	})
	s.AddTool(mcp.NewTool("write_file"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		content.Store(req.GetString("v", ""))
		return mcp.NewToolResultText("ok"), nil
	})
	c := startCacheClient(t, s)
	read := func() string { return text(c.CallRaw(t, "read_file", `{"path":"a"}`)) }
	read()
	if got := read(); got != "v1" || reads.Load() != 1 {
		t.Fatalf("second read %q after %d runs, want a hit", got, reads.Load())
	}
	c.CallRaw(t, "write_file", `{"v":"v2"}`)
	if got := read(); got != "v2" {
		t.Errorf("read after write = %q (runs %d), want v2", got, reads.Load())
	}
	read() // kept again
	s.DeleteTools("write_file")
	s.AddTool(mcp.NewTool("x"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	content.Store("v3")
	if got := read(); got != "v3" {
		t.Errorf("read after list change = %q (runs %d), want v3", got, reads.Load())
	}
}

// TestCacheIsClearedByAWriteRunAsATask: a write_file run as an MCP task
// drops the kept reads, as the same call in place does.
func TestCacheIsClearedByAWriteRunAsATask(t *testing.T) {
	var content atomic.Value
	content.Store("v1")
	s := server.NewMCPServer("fs", "1.0.0", server.WithTaskCapabilities(true, true, true))
	mcpgo.Attach(s, wrap.New(wrap.WithCache(wrap.Cache{TTL: time.Minute})))
	s.AddTool(mcp.NewTool("read_file", mcp.WithReadOnlyHintAnnotation(true)), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(content.Load().(string)), nil
	})
	s.AddTool(mcp.NewTool("write_file", mcp.WithTaskSupport(mcp.TaskSupportOptional)), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		content.Store(req.GetString("v", ""))
		return mcp.NewToolResultText("ok"), nil
	})
	c := &cacheClient{taskClient(t, s, "http")}
	read := func() string { return text(c.CallRaw(t, "read_file", `{"path":"a"}`)) }
	read()
	read()
	id := createdTaskID(t, callAsTask(t, c.cl, "write_file", map[string]any{"v": "v2"}))
	if id == "" {
		t.Fatal("no task")
	}
	waitTask(t, c.cl, id)
	if content.Load() != "v2" {
		t.Fatal("write did not run")
	}
	if got := read(); got != "v2" {
		t.Errorf("read after a write run as a task = %q, want v2", got)
	}
}

// TestRegistrationCacheIsClearedByListChanges: a cache given only in a
// tool's registration options, after Attach, is dropped when the tool list
// changes, as the Wrapper's own is.
func TestRegistrationCacheIsClearedByListChanges(t *testing.T) {
	var content atomic.Value
	content.Store("v1")
	var reads atomic.Int64
	s := server.NewMCPServer("fs", "1.0.0", server.WithToolCapabilities(true))
	w := wrap.New()
	mcpgo.Attach(s, w)
	s.AddTools(mcpgo.Tool(w, mcp.NewTool("read_file"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		reads.Add(1)
		return mcp.NewToolResultText(content.Load().(string)), nil
	}, wrap.WithCache(wrap.Cache{ReadOnly: true, TTL: time.Minute})))
	c := startCacheClient(t, s)
	read := func() string { return text(c.CallRaw(t, "read_file", `{"path":"a"}`)) }
	read()
	if got := read(); got != "v1" || reads.Load() != 1 {
		t.Fatalf("second read %q after %d runs, want a hit", got, reads.Load())
	}
	content.Store("v2")
	s.AddTool(mcp.NewTool("x"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	})
	if got := read(); got != "v2" {
		t.Errorf("read after list change = %q (runs %d), want v2", got, reads.Load())
	}
}
