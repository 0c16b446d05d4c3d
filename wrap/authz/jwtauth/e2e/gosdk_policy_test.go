package e2e_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/hydratest"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/authz/jwtauth"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// gosdkPolicyServer serves a go-sdk server with a policy behind go-sdk's
// own auth.RequireBearerToken and a jwtauth verifier of Hydra's tokens;
// it returns the endpoint, the server's log and how often each tool ran.
func gosdkPolicyServer(t *testing.T, h hydratest.Hydra, stateless bool, skew time.Duration) (string, *logs, map[string]*atomic.Int32) {
	t.Helper()
	log := &logs{}
	ln, resource := listen(t)
	v := verifier(t, h, resource, jwtauth.Config{Skew: skew})
	s := mcp.NewServer(&mcp.Implementation{Name: "e2e", Version: "1.0.0"}, nil)
	runs := map[string]*atomic.Int32{}
	for _, name := range []string{"list_issues", "delete_repository", "forgotten"} {
		n := new(atomic.Int32)
		runs[name] = n
		s.AddTool(&mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				n.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran " + name}}}, nil
			})
	}
	gosdk.Attach(s, wrap.New(wrap.WithLogger(logger(log)), wrap.WithAuthorization(authz.Policy{
		Tools: map[string][]string{"list_issues": {"issues:read"}, "delete_repository": {"repo:admin"}},
	})))
	guard := auth.RequireBearerToken(gosdk.TokenVerifier(v.Verify), &auth.RequireBearerTokenOptions{
		Scopes: []string{"mcp"}, ClockSkew: skew,
	})
	srv := &http.Server{Handler: guard(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: stateless})), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return resource, log, runs
}

func gosdkSession(t *testing.T, endpoint, token string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := gosdkConnect(ctx, endpoint, token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestGoSDKPolicyWithHydraTokens: real tokens from Hydra, with and without
// the scopes a tool needs, on go-sdk stateful and stateless: each caller is
// listed what its token's scopes allow, a hidden tool is answered as an
// unknown one and never runs, an undeclared one runs for nobody, and the
// log line names the subject and the scopes, never the token.
func TestGoSDKPolicyWithHydraTokens(t *testing.T) {
	h := hydratest.At(t)
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateful", true: "stateless"}[stateless], func(t *testing.T) {
			endpoint, log, runs := gosdkPolicyServer(t, h, stateless, 30*time.Second)
			cl := h.NewClient(t, hydratest.ClientOptions{Scopes: []string{"mcp", "issues:read", "repo:admin"}, Audiences: []string{endpoint}})
			reader := cl.Token(t, []string{"mcp", "issues:read"}, []string{endpoint})
			admin := cl.Token(t, []string{"mcp", "issues:read", "repo:admin"}, []string{endpoint})
			for token, want := range map[string][]string{reader: {"list_issues"}, admin: {"delete_repository", "list_issues"}} {
				res, err := gosdkSession(t, endpoint, token).ListTools(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				if got := adaptercases.SortedNames(res.Tools, func(tl *mcp.Tool) string { return tl.Name }); !slices.Equal(got, want) {
					t.Errorf("listed %v, want %v", got, want)
				}
			}
			_, hidden := gosdkSession(t, endpoint, reader).CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_repository"})
			_, unknown := gosdkSession(t, endpoint, reader).CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"})
			if hidden == nil || unknown == nil || hidden.Error() != strings.ReplaceAll(unknown.Error(), "no_such_tool", "delete_repository") {
				t.Fatalf("hidden tool answered %v, an unknown one %v", hidden, unknown)
			}
			if res, err := gosdkSession(t, endpoint, admin).CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_repository"}); err != nil || res.IsError {
				t.Fatalf("admin's call: %+v %v", res, err)
			}
			_, _ = gosdkSession(t, endpoint, admin).CallTool(context.Background(), &mcp.CallToolParams{Name: "forgotten"})
			if runs["delete_repository"].Load() != 1 || runs["forgotten"].Load() != 0 {
				t.Fatalf("delete_repository ran %d times (want 1), forgotten %d (want 0)", runs["delete_repository"].Load(), runs["forgotten"].Load())
			}
			if !strings.Contains(log.String(), `"decision":"hidden","reason":"scope","subject":"`+cl.ID+`"`) ||
				!strings.Contains(log.String(), `"missing":["repo:admin"]`) {
				t.Fatalf("the log does not say why the call was hidden: %s", log.String())
			}
			noToken(t, "the server's log", log.String(), reader, admin)
		})
	}
}

// TestGoSDKRefusesAnExpiredHydraToken: go-sdk's own middleware, with the
// verifier's skew, refuses a token once it expired.
func TestGoSDKRefusesAnExpiredHydraToken(t *testing.T) {
	h := hydratest.At(t)
	const skew = time.Second
	endpoint, _, _ := gosdkPolicyServer(t, h, false, skew)
	cl := h.NewClient(t, hydratest.ClientOptions{Scopes: []string{"mcp", "issues:read"}, Audiences: []string{endpoint}, Lifespan: 2 * time.Second})
	tok := cl.Token(t, []string{"mcp", "issues:read"}, []string{endpoint})
	if resp, _ := post(t, endpoint, tok, initialize); resp.StatusCode != 200 {
		t.Fatalf("fresh: %d %q", resp.StatusCode, header(resp))
	}
	time.Sleep(2*time.Second + skew + 1500*time.Millisecond) // exp has a one-second granularity
	resp, _ := post(t, endpoint, tok, initialize)
	expect(t, "expired", resp, 401)
}
