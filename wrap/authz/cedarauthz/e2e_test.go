package cedarauthz_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/authz/cedarauthz"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// issuesPolicies are the guide's (examplePolicies: tenant acme may do
// anything but destroy, unless it has repo:admin) and list_issues only on
// acme's repositories.
const issuesPolicies = examplePolicies + `
@id("own-repos")
forbid (principal, action == MCP::Action::"call", resource == MCP::Tool::"list_issues")
when { resource has arguments && resource.arguments has repo && !(resource.arguments.repo like "acme/*") };
`

// callers are the identities the stand-in verifier gives a bearer token's
// text (the policy is under test here, not the token).
var callers = map[string]authz.Caller{
	"reader": {Subject: "alice", Scopes: []string{"issues:read"}, Claims: map[string]any{"tenant": "acme"}},
	"admin":  {Subject: "bob", Scopes: []string{"issues:read", "repo:admin"}, Claims: map[string]any{"tenant": "acme"}},
	"other":  {Subject: "eve", Scopes: []string{"issues:read"}, Claims: map[string]any{"tenant": "globex"}},
}

func standIn(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, ok := callers[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]; ok {
			r = r.WithContext(authz.NewContext(r.Context(), c))
		}
		next.ServeHTTP(w, r)
	})
}

// serveIssues serves an mcp-go server whose policy is p's Cedar set, over
// streamable HTTP behind the stand-in verifier, and counts the runs of each
// tool.
func serveIssues(t *testing.T, p *cedarauthz.Policies, logs *logbuf.Buffer) (string, map[string]*atomic.Int32) {
	t.Helper()
	s := server.NewMCPServer("issues", "1.0.0")
	runs := map[string]*atomic.Int32{}
	for _, tool := range []mcp.Tool{
		mcp.NewTool("list_issues", mcp.WithReadOnlyHintAnnotation(true), mcp.WithString("repo")),
		mcp.NewTool("delete_repository", mcp.WithString("repo")), // destructive: mcp-go's default
	} {
		n := new(atomic.Int32)
		runs[tool.Name] = n
		s.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n.Add(1)
			return mcp.NewToolResultText("ran " + req.Params.Name), nil
		})
	}
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithAuthorization(authz.Policy{
		Public: []string{"*"}, // no scope gates; Cedar decides
		Check:  p.Check,
	})))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: standIn(server.NewStreamableHTTPServer(s)), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String() + "/mcp", runs
}

func callTool(t *testing.T, cl *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cl.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name, Arguments: args}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// hidden asserts that calling name answers what an unknown tool gets.
func hidden(t *testing.T, cl *client.Client, name string) {
	t.Helper()
	_, err := cl.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name}})
	if err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("calling %s: %v, want the unknown tool's error", name, err)
	}
}

// TestCedarThroughARealServer: through wrap.WithAuthorization on a real
// mcp-go server and client, a Cedar forbid keeps a destructive tool from
// whoever lacks repo:admin (out of the list, answered as unknown when
// called), a permit on the tenant claim lets acme in and nobody else, a
// forbid on the arguments refuses another tenant's repository, and an edit
// of the file changes the decisions without a restart.
func TestCedarThroughARealServer(t *testing.T) {
	logs := &logbuf.Buffer{}
	path := filepath.Join(t.TempDir(), "policies.cedar")
	writeFile(t, path, issuesPolicies)
	p, err := cedarauthz.Load(path, cedarauthz.WithInterval(10*time.Millisecond), cedarauthz.WithLogger(logs.Logger()))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	url, runs := serveIssues(t, p, logs)
	reader, admin, other := testserver.ConnectAs(t, url, "reader"), testserver.ConnectAs(t, url, "admin"), testserver.ConnectAs(t, url, "other")

	for _, tc := range []struct {
		name string
		cl   *client.Client
		want []string
	}{
		{"reader", reader, []string{"list_issues"}},
		{"admin", admin, []string{"delete_repository", "list_issues"}},
		{"other tenant", other, nil},
	} {
		if got := testserver.ToolNames(t, tc.cl); !slices.Equal(got, tc.want) {
			t.Errorf("%s is listed %v, want %v", tc.name, got, tc.want)
		}
	}

	denied := func(res *mcp.CallToolResult, want string) {
		t.Helper()
		info, ok := mcpgo.InfoOf(res)
		if !ok || info.Code != "permission_denied" || !strings.Contains(info.Message, want) {
			t.Fatalf("answer %+v (%v), want permission_denied saying %q", info, ok, want)
		}
		b, _ := json.Marshal(res)
		if strings.Contains(string(b), "globex") || strings.Contains(string(b), "alice") || strings.Contains(string(b), "eve") {
			t.Fatalf("the answer holds a claim or the subject: %s", b)
		}
	}
	// What a list hides, mcp-go answers as an unknown tool when called.
	hidden(t, reader, "delete_repository")
	if res := callTool(t, admin, "delete_repository", map[string]any{"repo": "acme/site"}); res.IsError {
		t.Fatalf("admin's delete refused: %+v", res)
	}
	if res := callTool(t, reader, "list_issues", map[string]any{"repo": "acme/site"}); res.IsError {
		t.Fatalf("acme's own repository refused: %+v", res)
	}
	denied(callTool(t, reader, "list_issues", map[string]any{"repo": "globex/site"}), `call on tool "list_issues" is denied: a policy forbids it`)
	hidden(t, other, "list_issues")
	if n, m := runs["delete_repository"].Load(), runs["list_issues"].Load(); n != 1 || m != 1 {
		t.Fatalf("delete_repository ran %d times, list_issues %d, want 1 and 1", n, m)
	}
	if strings.Contains(logs.String(), "globex") {
		t.Fatalf("a claim reached the log: %s", logs.String())
	}
	lines, err := logs.Find("tool", "list_issues")
	if err != nil || len(lines) == 0 || !strings.Contains(logs.String(), "matched own-repos") {
		t.Fatalf("no log line names the deciding policy (%v): %s", err, logs.String())
	}

	// globex joins: the file changes, the server does not restart.
	writeFile(t, path, issuesPolicies+`
@id("tenant-globex")
permit (principal, action == MCP::Action::"call", resource == MCP::Tool::"list_issues")
when { principal.claims has tenant && principal.claims.tenant == "globex" };
`)
	eventually(t, "globex is listed list_issues", func() bool { return slices.Equal(testserver.ToolNames(t, other), []string{"list_issues"}) })
	if res := callTool(t, other, "list_issues", nil); res.IsError {
		t.Fatalf("globex refused after the reload: %+v", res)
	}
}

// TestArgumentPermitThroughARealServer: a permit that reads the arguments
// lists its tool (a list entry has none) and mcp-go, which filters calls
// by the list's rule, lets the call reach the chain, where the arguments
// decide: a call they permit runs, any other is refused naming the tool.
func TestArgumentPermitThroughARealServer(t *testing.T) {
	p := load(t, `@id("public-repos")
permit (principal, action == MCP::Action::"call", resource == MCP::Tool::"list_issues")
when { resource.arguments.repo like "public/*" };`)
	url, runs := serveIssues(t, p, &logbuf.Buffer{})
	other := testserver.ConnectAs(t, url, "other")
	if got := testserver.ToolNames(t, other); !slices.Equal(got, []string{"list_issues"}) {
		t.Fatalf("listed %v, want [list_issues]", got)
	}
	if res := callTool(t, other, "list_issues", map[string]any{"repo": "public/site"}); res.IsError {
		t.Fatalf("a permitted repository refused: %+v", res)
	}
	for _, args := range []map[string]any{{"repo": "acme/secret"}, nil} {
		res := callTool(t, other, "list_issues", args)
		info, ok := mcpgo.InfoOf(res)
		if !ok || info.Code != "permission_denied" || !strings.Contains(info.Message, `call on tool "list_issues" is denied: no policy permits it`) {
			t.Fatalf("arguments %v: answer %+v (%v)", args, info, ok)
		}
	}
	hidden(t, other, "delete_repository")
	if n := runs["list_issues"].Load(); n != 1 {
		t.Fatalf("list_issues ran %d times, want 1", n)
	}
}
