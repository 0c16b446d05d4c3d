package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// cachedSearch is a go-sdk server over streamable HTTP (with sessions) with
// w attached and a read-only tool "search" whose runs are counted, each
// taking delay; and a real client of it with a bearer credential.
func cachedSearch(t *testing.T, w *wrap.Wrapper, delay time.Duration, runs *atomic.Int64) (*mcp.Server, *mcp.ClientSession) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "cache", Version: "1.0.0"}, nil)
	gosdk.Attach(s, w)
	s.AddTool(&mcp.Tool{Name: "search", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n := runs.Add(1)
			time.Sleep(delay)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint("run ", n)}}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	c := mcp.NewClient(&mcp.Implementation{Name: "cache-test", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{"t1", http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return s, cs
}

func search(t *testing.T, cs *mcp.ClientSession, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCacheRunsAHundredIdenticalCallsOnceOnGoSDK(t *testing.T) {
	var runs atomic.Int64
	_, cs := cachedSearch(t, wrap.New(wrap.WithCache(wrap.Cache{})), 200*time.Millisecond, &runs)
	adaptercases.CheckHundredCallsRunOnce(t, func() (string, bool) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"q": "rome"}})
		if err != nil {
			return err.Error(), false
		}
		return resultText(res), !res.IsError
	}, &runs)
}

func TestCacheHitsWhateverTheKeyOrderOnGoSDK(t *testing.T) {
	var runs atomic.Int64
	_, cs := cachedSearch(t, wrap.New(wrap.WithCache(wrap.Cache{})), 0, &runs)
	search(t, cs, `{"q":"rome","n":1}`)
	res := search(t, cs, `{"n":1.0,"q":"rome"}`)
	m, _ := res.Meta["mcpwrap/cache"].(map[string]any)
	if runs.Load() != 1 || m == nil {
		t.Fatalf("runs = %d, _meta %v; want one run and the cached answer's age", runs.Load(), res.Meta)
	}
}

func TestCacheForgetsWhenTheToolListChangesOnGoSDK(t *testing.T) {
	var runs atomic.Int64
	s, cs := cachedSearch(t, wrap.New(wrap.WithCache(wrap.Cache{})), 0, &runs)
	search(t, cs, `{"q":"x"}`)
	search(t, cs, `{"q":"x"}`)
	s.RemoveTools("nothing-to-remove") // no change: nothing is dropped
	s.AddTool(&mcp.Tool{Name: "other", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	deadline := time.Now().Add(5 * time.Second)
	for runs.Load() == 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // go-sdk notifies the sessions after a short delay
		search(t, cs, `{"q":"x"}`)
	}
	if runs.Load() != 2 {
		t.Fatalf("runs = %d after AddTool, want 2", runs.Load())
	}
}

// TestRegistrationCacheForgetsWhenTheToolListChangesOnGoSDK: a cache given
// only in a tool's registration options (gosdk.Tool), after Attach, is
// dropped when the tool list changes, as the Wrapper's own is.
func TestRegistrationCacheForgetsWhenTheToolListChangesOnGoSDK(t *testing.T) {
	var runs atomic.Int64
	s := mcp.NewServer(&mcp.Implementation{Name: "search", Version: "1"}, nil)
	w := wrap.New()
	gosdk.Attach(s, w)
	gosdk.Tool(s, w, &mcp.Tool{Name: "search", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			runs.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found"}}}, nil
		}, wrap.WithCache(wrap.Cache{ReadOnly: true, TTL: time.Minute}))
	cs := serveGoSDK(t, s, false, "alice")
	call := func() {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"q": "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	call()
	call()
	if runs.Load() != 1 {
		t.Fatalf("runs = %d after two calls, want a hit", runs.Load())
	}
	s.AddTool(&mcp.Tool{Name: "other", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	deadline := time.Now().Add(5 * time.Second)
	for runs.Load() == 1 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // go-sdk notifies the sessions after a short delay
		call()
	}
	if runs.Load() != 2 {
		t.Fatalf("runs = %d after AddTool, want 2", runs.Load())
	}
}

// The cache's paths beyond the plain hit on go-sdk: a timed-out call's
// repeat, resources/read, the write rule, and stateless HTTP, where the
// caller is the credential.

// serveGoSDK serves s over streamable HTTP (stateless when asked) on
// loopback and connects a real client with the bearer credential token.
func serveGoSDK(t *testing.T, s *mcp.Server, stateless bool, token string) *mcp.ClientSession {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: stateless})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return connectGoSDK(t, srv.URL, token)
}

func connectGoSDK(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "cache-paths-" + token, Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func cacheMetaOf(m mcp.Meta) map[string]any {
	v, _ := m["mcpwrap/cache"].(map[string]any)
	return v
}

// TestCacheGivesATimedOutCallsAnswerToItsRepeatOnGoSDK: a tool that must
// not run twice (Join) times out; its repeat joins the handler still
// running and gets its answer, and a later repeat within the window too.
func TestCacheGivesATimedOutCallsAnswerToItsRepeatOnGoSDK(t *testing.T) {
	var runs atomic.Int64
	s := mcp.NewServer(&mcp.Implementation{Name: "pay", Version: "1.0.0"}, nil)
	w := wrap.New(wrap.WithTimeout(300 * time.Millisecond))
	gosdk.Attach(s, w)
	gosdk.Tool(s, w, &mcp.Tool{Name: "pay", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			runs.Add(1)
			time.Sleep(450 * time.Millisecond) // ignores its context
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "paid"}}}, nil
		}, wrap.WithCache(wrap.Cache{Join: true}))
	cs := serveGoSDK(t, s, false, "t1")
	if r := callTool(t, cs, "pay", map[string]any{"to": "bob"}); !r.IsError || !strings.Contains(resultText(r), "timed out") {
		t.Fatalf("first call: %q, want a timeout", resultText(r))
	}
	r := callTool(t, cs, "pay", map[string]any{"to": "bob"})
	if r.IsError || resultText(r) != "paid" || cacheMetaOf(r.Meta)["joined"] == nil {
		t.Fatalf("repeat: %q %v, want the first call's answer, joined", resultText(r), r.Meta)
	}
	if r := callTool(t, cs, "pay", map[string]any{"to": "bob"}); resultText(r) != "paid" || runs.Load() != 1 {
		t.Fatalf("repeat within the window: %q, runs %d; want the kept answer and one run", resultText(r), runs.Load())
	}
}

// TestCacheKeepsAResourceReadOnGoSDK: a resource's contents are kept, with
// their age in the result's _meta, and dropped when the resource list
// changes.
func TestCacheKeepsAResourceReadOnGoSDK(t *testing.T) {
	var runs atomic.Int64
	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1.0.0"}, nil)
	gosdk.Attach(s, wrap.New(wrap.WithCache(wrap.Cache{})))
	s.AddResource(&mcp.Resource{URI: "file:///notes", Name: "notes"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///notes", Text: fmt.Sprint("run ", runs.Add(1))}}}, nil
	})
	cs := serveGoSDK(t, s, false, "t1")
	read := func() (string, map[string]any) {
		t.Helper()
		r, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "file:///notes"})
		if err != nil {
			t.Fatal(err)
		}
		return r.Contents[0].Text, cacheMetaOf(r.Meta) // on go-sdk, the result's _meta
	}
	read()
	if text, m := read(); text != "run 1" || m == nil {
		t.Fatalf("second read: %q %v, want the kept contents with their age", text, m)
	}
	s.AddResource(&mcp.Resource{URI: "file:///other", Name: "other"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	deadline := time.Now().Add(5 * time.Second)
	text, _ := read()
	for text == "run 1" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // go-sdk tells the sessions after a short delay
		text, _ = read()
	}
	if text != "run 2" {
		t.Fatalf("after AddResource: %q, want a new read", text)
	}
}

// TestCacheDropsKeptAnswersAfterAWriteOnGoSDK: the write rule on go-sdk
// over stateless HTTP: a call of a tool that is not read-only drops what
// was kept, so a read after a write reads again.
func TestCacheDropsKeptAnswersAfterAWriteOnGoSDK(t *testing.T) {
	var content atomic.Value
	content.Store("v1")
	var reads atomic.Int64
	s := mcp.NewServer(&mcp.Implementation{Name: "fs", Version: "1.0.0"}, nil)
	gosdk.Attach(s, wrap.New(wrap.WithCache(wrap.Cache{TTL: time.Minute})))
	s.AddTool(&mcp.Tool{Name: "read_file", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			reads.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: content.Load().(string)}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "write_file", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var args struct{ V string }
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
			content.Store(args.V)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	cs := serveGoSDK(t, s, true, "t1")
	read := func() string { return resultText(callTool(t, cs, "read_file", map[string]any{"path": "a"})) }
	if a, b := read(), read(); a != "v1" || b != "v1" || reads.Load() != 1 {
		t.Fatalf("two reads %q %q after %d runs, want v1 once", a, b, reads.Load())
	}
	callTool(t, cs, "write_file", map[string]any{"v": "v2"})
	if got := read(); got != "v2" || reads.Load() != 2 {
		t.Fatalf("read after the write: %q after %d runs, want v2 from a new run", got, reads.Load())
	}
}

// TestCacheNeverCrossesCallersStatelessOnGoSDK: with no session, the
// caller is the credential: a repeat with the same token is a hit, the
// same call with another token runs on its own, and a call without a
// credential is neither kept nor joined.
func TestCacheNeverCrossesCallersStatelessOnGoSDK(t *testing.T) {
	var runs atomic.Int64
	s := mcp.NewServer(&mcp.Implementation{Name: "search", Version: "1.0.0"}, nil)
	gosdk.Attach(s, wrap.New(wrap.WithCache(wrap.Cache{})))
	s.AddTool(&mcp.Tool{Name: "search", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			who := req.Extra.Header.Get("Authorization")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint("run ", runs.Add(1), " for ", who)}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	alice, bob := connectGoSDK(t, srv.URL, "alice"), connectGoSDK(t, srv.URL, "bob")
	q := map[string]any{"q": "salaries"}
	a1, a2, b1 := resultText(callTool(t, alice, "search", q)), resultText(callTool(t, alice, "search", q)), resultText(callTool(t, bob, "search", q))
	if a1 != "run 1 for Bearer alice" || a2 != a1 {
		t.Fatalf("alice: %q then %q, want run 1 twice (a hit)", a1, a2)
	}
	if b1 != "run 2 for Bearer bob" {
		t.Fatalf("bob got %q, want a run of his own", b1)
	}
}
