package gosdk_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
)

// bearer adds a credential to every request of a client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// statelessServer serves a go-sdk server with w attached over stateless
// streamable HTTP on loopback; its "read" tool always fails NotFound and
// counts its runs.
func statelessServer(t *testing.T, w *wrap.Wrapper, runs *atomic.Int64) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1.0.0"}, nil)
	gosdk.Attach(s, w)
	s.AddTool(&mcp.Tool{Name: "read", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return nil, errs.New(errs.NotFound, "no note named gone.md")
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func callRead(t *testing.T, cs *mcp.ClientSession) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"path": "gone.md"}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func resultText(res *mcp.CallToolResult) string {
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return ""
}

// TestLoopGuardStatelessDoesNotMixClients: over go-sdk's stateless
// streamable HTTP there is no session; the guard keys on the credential,
// so alice's loop is refused and bob's first identical call runs, and
// calls without a credential are not guarded (logged once).
func TestLoopGuardStatelessDoesNotMixClients(t *testing.T) {
	var runs atomic.Int64
	var logs logbuf.Buffer
	url := statelessServer(t, wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithLoopGuard(wrap.LoopGuard{})), &runs)

	alice, bob := connectAs(t, url, "alice", nil), connectAs(t, url, "bob", nil)
	for range 3 {
		callRead(t, alice)
	}
	before := runs.Load()
	if res := callRead(t, alice); runs.Load() != before || !strings.Contains(resultText(res), "failed 3 times") {
		t.Fatalf("alice's fourth identical call was not refused: %q", resultText(res))
	}
	before = runs.Load()
	if res := callRead(t, bob); runs.Load() != before+1 || strings.Contains(resultText(res), "failed 3 times") {
		t.Fatalf("bob's first call was refused because of alice's failures: %q", resultText(res))
	}

	anon1, anon2 := connectAs(t, url, "", nil), connectAs(t, url, "", nil)
	for range 4 {
		callRead(t, anon1)
	}
	before = runs.Load()
	for _, cs := range []*mcp.ClientSession{anon1, anon2} {
		if res := callRead(t, cs); strings.Contains(resultText(res), "failed 3 times") {
			t.Fatalf("a call without session or credential was refused: %q", resultText(res))
		}
	}
	if runs.Load() != before+2 {
		t.Fatalf("%d of 2 calls without a credential ran", runs.Load()-before)
	}
	if n := strings.Count(logs.String(), "loop guard: calls without a session or credential are not guarded"); n != 1 {
		t.Fatalf("want the unguarded calls said once, got %d:\n%s", n, logs.String())
	}
}

// TestRateLimitStatelessPerCredential: without a session the per-session
// limit falls to the credential: alice using up her calls leaves bob's
// intact; callers with no credential share one bucket, which the refusal
// says and the log says once.
func TestRateLimitStatelessPerCredential(t *testing.T) {
	var runs atomic.Int64
	var logs logbuf.Buffer
	lim := limit.New(limit.Rate{Limit: 2, Per: time.Minute}, limit.WithLogger(logs.Logger()))
	url := statelessServer(t, wrap.New(wrap.WithLimit(lim)), &runs)

	alice, bob := connectAs(t, url, "alice", nil), connectAs(t, url, "bob", nil)
	for range 2 {
		callRead(t, alice)
	}
	if info, _ := gosdk.InfoOf(callRead(t, alice)); info.Code != "rate_limited" || !strings.Contains(info.Message, "per credential") {
		t.Fatalf("alice's third call: %+v", info)
	}
	if info, _ := gosdk.InfoOf(callRead(t, bob)); info.Code == "rate_limited" {
		t.Fatalf("bob was limited by alice's calls: %+v", info)
	}

	anon1, anon2 := connectAs(t, url, "", nil), connectAs(t, url, "", nil)
	for range 2 {
		callRead(t, anon1)
	}
	if info, _ := gosdk.InfoOf(callRead(t, anon2)); info.Code != "rate_limited" || !strings.Contains(info.Message, "shared by all callers") {
		t.Fatalf("a caller without credential: %+v", info)
	}
	if n := strings.Count(logs.String(), "rate limit: calls without a session, credential or known address share one bucket"); n != 1 {
		t.Fatalf("want the shared bucket said once, got %d:\n%s", n, logs.String())
	}
}

// TestLoopGuardGuardsOneConnection: a connection without HTTP (stdio, or
// go-sdk's in-memory transport) has no session id and no credential; it
// serves one client, so the guard keys on the connection and still stops
// the loop.
func TestLoopGuardGuardsOneConnection(t *testing.T) {
	var runs atomic.Int64
	s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1.0.0"}, nil)
	gosdk.Attach(s, wrap.New(wrap.WithLoopGuard(wrap.LoopGuard{})))
	s.AddTool(&mcp.Tool{Name: "read", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return nil, errs.New(errs.NotFound, "no note named gone.md")
	})
	cs := connect(t, "memory", s, true)
	for range 3 {
		callRead(t, cs)
	}
	before := runs.Load()
	if res := callRead(t, cs); runs.Load() != before || !strings.Contains(resultText(res), "failed 3 times") {
		t.Fatalf("the fourth identical call over one connection was not refused: %q", resultText(res))
	}
}
