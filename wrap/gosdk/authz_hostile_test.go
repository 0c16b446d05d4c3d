package gosdk_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/benchmix"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/rawrpc"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

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
