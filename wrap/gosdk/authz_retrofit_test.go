package gosdk_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/benchmix"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/rawrpc"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// newGitHubShapedServer has the shape of github/github-mcp-server
// (64a49f34): a NewServer(version, name, title, opts) over mcp.NewServer,
// its own receiving middleware added first, tools registered with plain
// Server.AddTool, read-only ones annotated, and the "owner" and "repo"
// properties of every input schema marked x-mcp-header, which go-sdk's
// streamable transport checks against Mcp-Param-* headers before any
// middleware runs.
func newGitHubShapedServer(runs *sync.Map) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "github-mcp-server", Title: "GitHub MCP Server", Version: "wild"}, &mcp.ServerOptions{})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			return next(context.WithValue(ctx, ghErrorsKey{}, new([]error)), method, req)
		}
	})
	repoSchema := map[string]any{"type": "object", "properties": map[string]any{
		"owner": map[string]any{"type": "string", "x-mcp-header": "owner"},
		"repo":  map[string]any{"type": "string", "x-mcp-header": "repo"},
	}, "required": []string{"owner", "repo"}}
	add := func(name string, schema any, readOnly bool) {
		v, _ := runs.LoadOrStore(name, new(atomic.Int32)) // one count across the servers built per request
		n := v.(*atomic.Int32)
		s.AddTool(&mcp.Tool{Name: name, InputSchema: schema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: readOnly}},
			func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				n.Add(1)
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "failed to get user: Get \"https://api.github.com/user\": no such host"}}}, nil
			})
	}
	add("get_me", map[string]any{"type": "object"}, true)
	add("list_issues", repoSchema, true)
	add("create_branch", repoSchema, false)
	add("delete_file", repoSchema, false) // the policy leaves it out
	return s
}

type ghErrorsKey struct{}

var ghScopes = map[string][]string{"get_me": {"repo:read"}, "list_issues": {"repo:read"}, "create_branch": {"repo:write"}}

var ghTokens = map[string]*auth.TokenInfo{
	"gho_reader": {UserID: "alice", Scopes: []string{"repo:read"}},
	"gho_writer": {UserID: "bob", Scopes: []string{"repo:read", "repo:write"}},
}

func ghVerifier(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
	if ti, ok := ghTokens[tok]; ok {
		cp := *ti
		cp.Expiration = time.Now().Add(time.Hour)
		return &cp, nil
	}
	if n, ok := strings.CutPrefix(tok, "gho_reader_"); ok {
		return &auth.TokenInfo{UserID: "alice" + n, Scopes: []string{"repo:read"}, Expiration: time.Now().Add(time.Hour)}, nil
	}
	if n, ok := strings.CutPrefix(tok, "gho_writer_"); ok {
		return &auth.TokenInfo{UserID: "bob" + n, Scopes: []string{"repo:read", "repo:write"}, Expiration: time.Now().Add(time.Hour)}, nil
	}
	return nil, auth.ErrInvalidToken
}

// serveGitHubShaped serves the server behind go-sdk's RequireBearerToken:
// stateless as github-mcp-server's HTTP mode does (a server built per
// request, the one Wrapper attached to each), or stateful over one server.
func serveGitHubShaped(t testing.TB, w *wrap.Wrapper, stateless bool) (string, *sync.Map) {
	t.Helper()
	runs := new(sync.Map)
	one := newGitHubShapedServer(runs)
	if w != nil {
		gosdk.Attach(one, w)
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server {
		if !stateless {
			return one
		}
		s := newGitHubShapedServer(runs)
		if w != nil {
			gosdk.Attach(s, w) // the one line, where the server is built
		}
		return s
	}, &mcp.StreamableHTTPOptions{Stateless: stateless})
	return serveBehindBearer(t, ghVerifier, h), runs
}

func ran(runs *sync.Map, name string) int32 {
	v, _ := runs.Load(name)
	return v.(*atomic.Int32).Load()
}

// TestAuthzRetrofitOnAGitHubShapedServer: bare, every caller is listed the
// four tools; retrofitted, the reader three, the writer four minus the
// forgotten one, stateful and stateless (a server per request); an
// allowed call gets the upstream's failure as its answer, and a hidden
// tool is answered as an unknown one.
func TestAuthzRetrofitOnAGitHubShapedServer(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateful", true: "stateless"}[stateless], func(t *testing.T) {
			bareURL, _ := serveGitHubShaped(t, nil, stateless)
			if got := names(t, connectAs(t, bareURL, "gho_reader", nil)); len(got) != 4 {
				t.Fatalf("bare lists %v", got)
			}
			logs := &logbuf.Buffer{}
			w := wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithAuthorization(authz.Policy{Tools: ghScopes}))
			url, runs := serveGitHubShaped(t, w, stateless)
			reader := connectAs(t, url, "gho_reader", nil)
			if got := names(t, reader); !slices.Equal(got, []string{"get_me", "list_issues"}) {
				t.Errorf("reader is listed %v", got)
			}
			if got := names(t, connectAs(t, url, "gho_writer", nil)); !slices.Equal(got, []string{"create_branch", "get_me", "list_issues"}) {
				t.Errorf("writer is listed %v", got)
			}
			if !strings.Contains(logs.String(), "no policy declares tools/call delete_file") {
				t.Errorf("the first tools/list warned of nothing: %s", logs.String())
			}
			res, err := reader.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_me", Arguments: map[string]any{}})
			if err != nil || !res.IsError || ran(runs, "get_me") != 1 {
				t.Fatalf("an allowed call: %+v %v", res, err)
			}
			// A session each: go-sdk v1.7.0's client closes its session on
			// the HTTP 400 its stateless server answers an unknown tool with.
			_, unknown := connectAs(t, url, "gho_reader", nil).CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
			_, hidden := connectAs(t, url, "gho_reader", nil).CallTool(context.Background(), &mcp.CallToolParams{Name: "get_mine", Arguments: map[string]any{}})
			adaptercases.CheckAnsweredAsUnknown(t, hidden, unknown, "get_mine", "no_such_tool")
		})
	}
}

// TestHiddenToolWithHeaderParamsIsAnsweredAsUnknown: a hidden tool whose
// schema marks parameters x-mcp-header. The client never saw the tool, so
// it sends no Mcp-Param-* header; go-sdk's transport checks them against
// the server's own tool, before any middleware. Over stateful streamable
// HTTP (protocol 2025-11-25) the hidden tool is answered exactly as an
// unknown one.
//
// Over stateless HTTP (protocol 2026-07-28) go-sdk answers such a call
// HTTP 400 "header mismatch: missing Mcp-Param-owner header for parameter
// "owner"" before any middleware runs, so a caller learns that the tool
// exists and the names of its parameters (docs/upstream-hooks.md, "go-sdk
// checks Mcp-Param headers before the middleware"). The stateless case
// asserts that gap as it is, so that an upgrade of go-sdk that closes it
// fails here and the docs are updated; the tool never runs either way.
func TestHiddenToolWithHeaderParamsIsAnsweredAsUnknown(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateful", true: "stateless"}[stateless], func(t *testing.T) {
			w := wrap.New(wrap.WithLogger(new(logbuf.Buffer).Logger()), wrap.WithAuthorization(authz.Policy{Tools: ghScopes}))
			url, runs := serveGitHubShaped(t, w, stateless)
			args := map[string]any{"owner": "o", "repo": "r"}
			_, unknown := connectAs(t, url, "gho_reader", nil).CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool", Arguments: args})
			_, hidden := connectAs(t, url, "gho_reader", nil).CallTool(context.Background(), &mcp.CallToolParams{Name: "create_branch", Arguments: args})
			if ran(runs, "create_branch") != 0 {
				t.Fatal("the hidden tool ran")
			}
			if unknown == nil || hidden == nil {
				t.Fatalf("answers %v and %v", unknown, hidden)
			}
			same := hidden.Error() == strings.ReplaceAll(unknown.Error(), "no_such_tool", "create_branch")
			switch {
			case !stateless && !same:
				t.Fatalf("the hidden tool is answered %q, an unknown one %q", hidden, unknown)
			case stateless && same:
				t.Fatalf("go-sdk now answers a hidden tool with x-mcp-header parameters as an unknown one over stateless HTTP: update docs/upstream-hooks.md and this test")
			case stateless && !strings.Contains(hidden.Error(), "Mcp-Param"):
				t.Fatalf("stateless answer %q: not the header check docs/upstream-hooks.md describes", hidden)
			}
		})
	}
}

// TestGoSDKAuthzUnderConcurrentCallers: 1 000 lists and calls at once from
// 50 callers, a server built per request (run with -race).
func TestGoSDKAuthzUnderConcurrentCallers(t *testing.T) {
	w := wrap.New(wrap.WithLogger(new(logbuf.Buffer).Logger()), wrap.WithAuthorization(authz.Policy{Tools: ghScopes}))
	url, runs := serveGitHubShaped(t, w, true)
	const callers, rounds = 50, 10
	var wg sync.WaitGroup
	var wrong atomic.Int32
	for i := range callers {
		writer := i%2 == 1
		cs := connectAs(t, url, fmt.Sprintf("%s_%d", map[bool]string{false: "gho_reader", true: "gho_writer"}[writer], i), nil)
		for range rounds {
			wg.Add(2)
			go func() {
				defer wg.Done()
				res, err := cs.ListTools(context.Background(), nil)
				if err != nil || len(res.Tools) != map[bool]int{false: 2, true: 3}[writer] {
					wrong.Add(1)
				}
			}()
			go func() {
				defer wg.Done()
				_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_me", Arguments: map[string]any{}})
				if err != nil {
					wrong.Add(1)
				}
			}()
		}
	}
	wg.Wait()
	if wrong.Load() != 0 {
		t.Fatalf("%d of %d answers were wrong", wrong.Load(), 2*callers*rounds)
	}
	if n := ran(runs, "get_me"); n != callers*rounds {
		t.Fatalf("get_me ran %d times, want %d", n, callers*rounds)
	}
}

// TestGoSDKAuthzHostileClient: a hostile client against the retrofitted
// GitHub-shaped server, stateless (a server per request), on loopback.
func TestGoSDKAuthzHostileClient(t *testing.T) {
	many := make([]string, 10000)
	for i := range many {
		many[i] = fmt.Sprintf("scope:%d", i)
	}
	many[9999] = "repo:read"
	ghTokens["gho_many"] = &auth.TokenInfo{UserID: "mallory", Scopes: many}
	t.Cleanup(func() { delete(ghTokens, "gho_many") })
	logs := &logbuf.Buffer{}
	p := authz.Policy{Tools: ghScopes, Check: func(_ context.Context, _ authz.Caller, r authz.Request) error {
		if r.Name == "list_issues" && !r.Listing {
			panic("a policy bug")
		}
		return nil
	}}
	w := wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithAuthorization(p))
	bareURL, _ := serveGitHubShaped(t, nil, true)
	url, runs := serveGitHubShaped(t, w, true)
	adaptercases.LogFootprint(t)

	if code, _ := rawrpc.Post(t, url, strings.Repeat("a", 16<<20), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)); code != http.StatusRequestHeaderFieldsTooLarge && code != 0 {
		t.Fatalf("a 16 MiB token got HTTP %d", code)
	}
	cs := connectAs(t, url, "gho_many", nil)
	if got := names(t, cs); !slices.Equal(got, []string{"get_me", "list_issues"}) {
		t.Fatalf("10 000 scopes are listed %v", got)
	}
	before := len(logs.String())
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_me", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if n := len(logs.String()) - before; n > 4096 {
		t.Fatalf("the call's log line is %d bytes", n)
	}
	reader := connectAs(t, url, "gho_reader", nil)
	_ = names(t, reader) // go-sdk's client learns the x-mcp-header parameters from the list
	res, err := reader.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_issues", Arguments: map[string]any{"owner": "o", "repo": "r"}})
	// Hidden, as on mcp-go: go-sdk's own unknown-tool answer.
	if err == nil || !strings.Contains(err.Error(), `unknown tool "list_issues"`) || ran(runs, "list_issues") != 0 {
		t.Fatalf("a panicking Check: %+v %v", res, err)
	}
	hostile := []string{
		strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000),
		`{"owner":"o","repo":"r","x":"` + strings.Repeat("x", 8<<20) + `"}`,
		`{"owner":`,
		`{"owner":"o","repo":"r","x":` + strings.Repeat("[", 900) + strings.Repeat("]", 900) + `}`, // under go-sdk's bounds: reaches the policy
		`{"owner":"o","repo":"r","x":"` + strings.Repeat("x", 3<<20) + `"}`,
	}
	// 6 MiB deep, an 8 MiB string, truncated, 900 deep, a 3 MiB string
	adaptercases.PostHostileBodies(t, bareURL, url, "gho_reader", "create_branch", hostile, func(_ int, answer string) bool {
		return !strings.Contains(answer, `"result"`)
	})
	if ran(runs, "create_branch") != 0 {
		t.Fatal("the denied tool ran")
	}
}

// BenchmarkGoSDKAuthz times an allowed call bare and retrofitted, the two
// taking turns, stateful and stateless (it was a test that only logged p50
// and p99):
//
//	go test -run '^$' -bench GoSDKAuthz ./wrap/gosdk/
func BenchmarkGoSDKAuthz(b *testing.B) {
	for _, stateless := range []bool{false, true} {
		b.Run(fmt.Sprintf("stateless=%v", stateless), func(b *testing.B) {
			bareURL, _ := serveGitHubShaped(b, nil, stateless)
			w := wrap.New(wrap.WithLogger(new(logbuf.Buffer).Logger()), wrap.WithAuthorization(authz.Policy{Tools: ghScopes}))
			url, _ := serveGitHubShaped(b, w, stateless)
			cls := []*mcp.ClientSession{connectAs(b, bareURL, "gho_reader", nil), connectAs(b, url, "gho_reader", nil)}
			benchmix.Run(b, []string{"bare", "retrofitted"}, func(i int) error {
				_, err := cls[i].CallTool(context.Background(), &mcp.CallToolParams{Name: "get_me", Arguments: map[string]any{}})
				return err
			})
		})
	}
}
