package limit_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
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
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/ratelimit"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

func okHandler(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultText("ok"), nil
}

// TestDenialOverHTTP runs a real server and real clients over streamable
// HTTP, one per kind of default key: a session (the handshake protocol), a
// credential and a client address (the stateless protocol). The fourth call
// of each within the minute is an isError result the model can act on; the
// span has the denial event, the counter counts it, the log line names the
// limit, and the credential appears nowhere.
func TestDenialOverHTTP(t *testing.T) {
	const secret = "Bearer tok-9f8e7d6c5b4a"
	tel := obstest.Record(t)
	logs, spans, reader, mp := tel.Logs, tel.Spans, tel.Reader, tel.MP

	var ran atomic.Int32
	search := func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ran.Add(1)
		return okHandler(ctx, req)
	}
	lim := limit.New(limit.Rate{Limit: 3, Per: time.Minute}, limit.WithMeterProvider(mp))
	s := server.NewMCPServer("t", "1", attached(wrap.New(tel.Option(), wrap.WithLimit(lim))))
	s.AddTool(mcp.NewTool("search"), search)
	s.AddTool(mcp.NewTool("other"), okHandler)
	url := listen(t, s)
	ctx := context.Background()

	cases := []struct {
		name    string
		headers map[string]string
		opts    []client.ClientOption
		scope   string
	}{
		{"session", nil, []client.ClientOption{client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION)}, "session"},
		{"credential", map[string]string{"Authorization": secret}, nil, "credential"},
		{"address", nil, nil, "client address"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl := testserver.Connect(t, url, c.headers, c.opts...)
			before := ran.Load()
			for i := range 3 {
				res, err := callTool(ctx, cl, "search")
				if err != nil || res.IsError {
					t.Fatalf("call %d: %v %+v", i, err, res)
				}
			}
			res, err := callTool(ctx, cl, "search")
			if err != nil {
				t.Fatalf("a denial must be a result, not a protocol error: %v", err)
			}
			info, ok := mcpgo.InfoOf(res)
			if !ok || !res.IsError {
				t.Fatalf("not an error result: %+v", res)
			}
			if info.Code != "rate_limited" || info.RetryAfterSeconds < 1 || info.RetryAfterSeconds > 20 || !info.Retryable {
				t.Errorf("info = %+v", info)
			}
			wantPrefix := `tool "search" allows 3 calls per minute per ` + c.scope + `; retry after `
			if text := res.Content[0].(mcp.TextContent).Text; !strings.HasPrefix(text, wantPrefix) || !strings.HasSuffix(text, "s") {
				t.Errorf("message %q, want prefix %q", text, wantPrefix)
			}
			if n := ran.Load() - before; n != 3 {
				t.Errorf("handler ran %d times, want 3", n)
			}
			// Another tool has its own bucket.
			if res, err := callTool(ctx, cl, "other"); err != nil || res.IsError {
				t.Errorf("other tool: %v %+v", err, res)
			}
		})
	}

	var events int
	for _, sp := range spans.Ended() {
		for _, ev := range sp.Events() {
			if ev.Name == "rate_limited" {
				events++
			}
			for _, a := range ev.Attributes {
				if strings.Contains(a.Value.Emit(), "tok-9f8e") {
					t.Errorf("span event holds the credential: %v", a)
				}
			}
		}
		for _, a := range sp.Attributes() {
			if strings.Contains(a.Value.Emit(), "tok-9f8e") {
				t.Errorf("span holds the credential: %v", a)
			}
		}
	}
	if events != len(cases) {
		t.Errorf("%d denial span events, want %d", events, len(cases))
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	if n := counterSum(rm, "mcpwrap.tool.rate_limited"); n != int64(len(cases)) {
		t.Errorf("denial counter = %d, want %d", n, len(cases))
	}
	lines, err := logs.Lines()
	if err != nil {
		t.Fatal(err)
	}
	var denied int
	for _, l := range lines {
		if l["code"] == "rate_limited" {
			denied++
			if c, _ := l["cause"].(string); !strings.Contains(c, `allows 3 calls per minute per `) {
				t.Errorf("log line does not name the limit: %v", l)
			}
		}
	}
	if denied != len(cases) {
		t.Errorf("%d denied log lines, want %d:\n%s", denied, len(cases), logs.String())
	}
	if strings.Contains(logs.String(), "tok-9f8e") {
		t.Errorf("the log holds the credential")
	}
}

// listen serves s over streamable HTTP on loopback, recording each client's
// address for DefaultKey.
func listen(t *testing.T, s *server.MCPServer) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(limit.HTTPContextFunc)),
		ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

func callTool(ctx context.Context, cl *client.Client, tool string) (*mcp.CallToolResult, error) {
	var req mcp.CallToolRequest
	req.Params.Name = tool
	return cl.CallTool(ctx, req)
}

func counterSum(rm metricdata.ResourceMetrics, name string) int64 {
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			if s, ok := m.Data.(metricdata.Sum[int64]); ok {
				for _, dp := range s.DataPoints {
					n += dp.Value
				}
			}
		}
	}
	return n
}

// clock is a manual clock for stepping through windows.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestLimits steps a clock through the per-tool, override and ceiling
// rules.
func TestLimits(t *testing.T) {
	ctx := context.Background()
	t.Run("window refills", func(t *testing.T) {
		c := newClock()
		l := limit.New(limit.Rate{Limit: 2, Per: time.Minute}, ratelimit.WithClock(c.Now).(limit.Option))
		for range 2 {
			if err := l.Admit(ctx, "a", "", nil); err != nil {
				t.Fatal(err)
			}
		}
		err := l.Admit(ctx, "a", "", nil)
		var e *errs.Error
		if !errors.As(err, &e) || e.Code() != errs.RateLimited || e.RetryAfter() != 30*time.Second {
			t.Fatalf("third call: %v (retry after %v)", err, e.RetryAfter())
		}
		if e.Message() != `tool "a" allows 2 calls per minute shared by all callers without a session, credential or known address` {
			t.Errorf("message %q", e.Message())
		}
		c.Add(30 * time.Second)
		if err := l.Admit(ctx, "a", "", nil); err != nil {
			t.Errorf("after the interval: %v", err)
		}
	})
	t.Run("per-tool override and exemption", func(t *testing.T) {
		l := limit.New(limit.Rate{Limit: 1, Per: time.Hour}, limit.WithTool("fast", limit.Rate{Limit: 100, Per: time.Second}), limit.WithTool("free", limit.Rate{}))
		for i := range 50 {
			if err := l.Admit(ctx, "fast", "", nil); err != nil {
				t.Fatalf("fast %d: %v", i, err)
			}
			if err := l.Admit(ctx, "free", "", nil); err != nil {
				t.Fatalf("free %d: %v", i, err)
			}
		}
		_ = l.Admit(ctx, "slow", "", nil)
		if err := l.Admit(ctx, "slow", "", nil); errs.CodeOf(err) != errs.RateLimited {
			t.Errorf("slow: %v", err)
		}
	})
	t.Run("server ceiling across keys", func(t *testing.T) {
		byTenant := limit.WithKey(func(_ context.Context, c limit.Call) limit.Key {
			return limit.Key{Scope: "tenant", ID: c.Header.Get("X-Tenant")}
		})
		l := limit.New(limit.Rate{Limit: 100, Per: time.Minute}, byTenant, limit.WithServerLimit(limit.Rate{Limit: 5, Per: time.Minute}))
		var denied error
		for i := range 6 {
			denied = l.Admit(ctx, "t", "", http.Header{"X-Tenant": {string(rune('a' + i))}})
		}
		var e *errs.Error
		if !errors.As(denied, &e) || e.Message() != "the server allows 5 calls per minute in total" {
			t.Errorf("sixth call: %v", denied)
		}
	})
	t.Run("custom scope in the message", func(t *testing.T) {
		l := limit.New(limit.Rate{Limit: 1, Per: time.Second, Burst: 1}, limit.WithKey(func(context.Context, limit.Call) limit.Key {
			return limit.Key{Scope: "tenant", ID: "x"}
		}))
		_ = l.Admit(ctx, "q", "", nil)
		err := l.Admit(ctx, "q", "", nil)
		if e := errs.From(err); e == nil || e.Message() != `tool "q" allows 1 call per second per tenant` {
			t.Errorf("%v", err)
		}
	})
}

// session is a minimal ClientSession carrying an id.
type session struct{ id string }

func (s session) Initialize()                                         {}
func (s session) Initialized() bool                                   { return true }
func (s session) NotificationChannel() chan<- mcp.JSONRPCNotification { return nil }
func (s session) SessionID() string                                   { return s.id }

func TestDefaultKey(t *testing.T) {
	const secret = "Bearer s3cr3t-token-value"
	withSession := func(c limit.Call, id string) limit.Call {
		c.Session = id // the adapter reads it from the SDK's session
		return c
	}
	withAuth := func(v string) limit.Call {
		return limit.Call{Tool: "x", Header: map[string][]string{"Authorization": {v}}}
	}
	peer := httptest.NewRequest("POST", "/mcp", nil)
	peer.RemoteAddr = "127.0.0.9:5555"
	cases := []struct {
		name  string
		ctx   context.Context
		call  limit.Call
		scope string
		id    string
	}{
		{"session wins", context.Background(), withSession(withAuth(secret), "mcp-session-1"), "session", "mcp-session-1"},
		{"credential without session", context.Background(), withSession(withAuth(secret), ""), "credential", ""},
		{"address", limit.HTTPContextFunc(context.Background(), peer), limit.Call{Tool: "x"}, "client address", "127.0.0.9"},
		{"nothing shares one bucket", context.Background(), limit.Call{Tool: "x"}, "shared", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := limit.DefaultKey(c.ctx, c.call)
			if k.Scope != c.scope || (c.id != "" && k.ID != c.id) {
				t.Errorf("key %+v, want scope %q id %q", k, c.scope, c.id)
			}
			if strings.Contains(k.ID, "s3cr3t") {
				t.Errorf("key holds the credential: %q", k.ID)
			}
		})
	}
	a := limit.DefaultKey(context.Background(), withAuth(secret))
	b := limit.DefaultKey(context.Background(), withAuth(secret))
	o := limit.DefaultKey(context.Background(), withAuth("Bearer other"))
	if a != b || a == o || len(a.ID) != 32 {
		t.Errorf("credential keys not stable and distinct: %v %v %v", a, b, o)
	}
}

// failingStore fails while its flag is set.
type failingStore struct {
	mu   sync.Mutex
	fail bool
	s    *ratelimit.Local
}

func (f *failingStore) set(fail bool) {
	f.mu.Lock()
	f.fail = fail
	f.mu.Unlock()
}

func (f *failingStore) Take(ctx context.Context, now time.Time, b ratelimit.Bucket) (ratelimit.Decision, error) {
	f.mu.Lock()
	fail := f.fail
	f.mu.Unlock()
	if fail {
		return ratelimit.Decision{}, errors.New("dial tcp 127.0.0.1:6379: connect: connection refused")
	}
	return f.s.Take(ctx, now, b)
}

// TestStoreFailure: a failed store call is refused with a retry; only
// ratelimit.OutageAfter (3) failures in a row are an outage, logged once,
// during which fail open applies the rate locally (bounded, not unchecked)
// and fail closed refuses; recovery is logged once and the store's limits resume.
func TestStoreFailure(t *testing.T) {
	ctx := context.Background()
	for _, closed := range []bool{false, true} {
		name := "fail open"
		opts := []limit.Option{}
		if closed {
			name = "fail closed"
			opts = append(opts, limit.WithFailClosed())
		}
		t.Run(name, func(t *testing.T) {
			var logs logbuf.Buffer
			st := &failingStore{s: ratelimit.NewLocal(0)}
			l := limit.New(limit.Rate{Limit: 1, Per: time.Minute}, append(opts, ratelimit.WithStore(st).(limit.Option), limit.WithLogger(logs.Logger()))...)
			st.set(true)
			allowed := 0
			for i := range 5 {
				err := l.Admit(ctx, "t", "", nil)
				info := errmap.ToResult(err, errmap.Call{Tool: "t"}).Info
				switch {
				case !closed && i >= ratelimit.OutageAfter-1:
					// An outage, fail open: the local fallback applies the
					// rate of 1 per minute.
					if err == nil {
						allowed++
					} else if info.Code != "rate_limited" {
						t.Fatalf("fail open, outage: %+v", info)
					}
				case info.Code != "unavailable" || info.RetryAfterSeconds != 1 ||
					!strings.Contains(info.Message, `tool "t" is not taking calls`) || strings.Contains(info.Message, "6379"):
					// Fail closed, or a failure before the outage: refused
					// with a retry, never run unchecked.
					t.Fatalf("call %d: %+v", i, info)
				}
			}
			if !closed && allowed != 1 {
				t.Fatalf("fail open, outage: %d calls allowed, want the rate's 1", allowed)
			}
			st.set(false)
			if err := l.Admit(ctx, "t", "", nil); err != nil {
				t.Fatalf("after recovery: %v", err)
			}
			if err := l.Admit(ctx, "t", "", nil); errs.CodeOf(err) != errs.RateLimited {
				t.Fatalf("limits did not resume: %v", err)
			}
			st.set(true)
			for range ratelimit.OutageAfter {
				_ = l.Admit(ctx, "t", "", nil)
			}
			out := logs.String()
			if n := strings.Count(out, "rate-limit store failed"); n != 2 {
				t.Errorf("%d failure lines, want one per transition (2):\n%s", n, out)
			}
			if n := strings.Count(out, "answers again"); n != 1 {
				t.Errorf("%d recovery lines, want 1:\n%s", n, out)
			}
		})
	}
}

func TestDenialJSON(t *testing.T) {
	// What the model reads, in full.
	l := limit.New(limit.Rate{Limit: 10, Per: time.Minute})
	for range 10 {
		_ = l.Admit(context.Background(), "search", "", nil)
	}
	err := l.Admit(context.Background(), "search", "", nil)
	res := errmap.ToResult(err, errmap.Call{Tool: "search", ID: "c1"})
	b, _ := json.Marshal(res.Structured())
	want := `{"error":{"code":"rate_limited","message":"tool \"search\" allows 10 calls per minute shared by all callers without a session, credential or known address; retry after 6s","retryable":true,"retryAfterSeconds":6,"callId":"c1","tool":"search"}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

// TestBeforeBinding: the limit is checked before the arguments are bound,
// so a refused call costs no decoding or validation and says rate_limited
// even when its arguments are also wrong.
func TestBeforeBinding(t *testing.T) {
	type args struct {
		Q string `json:"q" validate:"required"`
	}
	w := wrap.New(wrap.WithLimit(limit.New(limit.Rate{Limit: 1, Per: time.Minute})))
	var bound int
	st := mcpgo.Typed(w, mcp.NewTool("search"), func(_ context.Context, _ mcp.CallToolRequest, a args) (*mcp.CallToolResult, error) {
		bound++
		return mcp.NewToolResultText(a.Q), nil
	})
	ctx := context.Background()
	var req mcp.CallToolRequest
	req.Params.Name = "search"
	req.Params.Arguments = map[string]any{"q": "x"}
	if res, _ := st.Handler(ctx, req); res.IsError {
		t.Fatalf("first call: %+v", res)
	}
	req.Params.Arguments = map[string]any{"q": 42}
	res, _ := st.Handler(ctx, req)
	if info, _ := mcpgo.InfoOf(res); info.Code != "rate_limited" {
		t.Errorf("second call (bad arguments, over the limit): %+v, want rate_limited", info)
	}
	if bound != 1 {
		t.Errorf("handler ran %d times", bound)
	}
}
