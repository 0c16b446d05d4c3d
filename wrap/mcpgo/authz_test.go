package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
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
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// callers are the identities the test's stand-in verifier gives a bearer
// token's text: the policy is what is under test here, not the token
// (package jwtauth's tests verify real tokens from a real authorization
// server).
var callers = map[string]authz.Caller{
	"reader": {Subject: "alice", Scopes: []string{"issues:read"}, Claims: map[string]any{"tenant": "acme"}},
	"admin":  {Subject: "bob", Scopes: []string{"issues:read", "repo:admin"}, Claims: map[string]any{"tenant": "acme"}},
	"other":  {Subject: "eve", Scopes: []string{"issues:read"}, Claims: map[string]any{"tenant": "globex"}},
}

func standIn(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if c, ok := callers[tok]; ok {
			r = r.WithContext(authz.NewContext(r.Context(), c))
		}
		next.ServeHTTP(w, r)
	})
}

// policyServer is a server the way people write one, with the tools a
// policy tells apart, and counts of how often each handler ran.
type policyServer struct {
	s    *server.MCPServer
	runs map[string]*atomic.Int32
	logs *logbuf.Buffer
}

func newPolicyServer(t *testing.T, p authz.Policy, opts ...server.ServerOption) *policyServer {
	t.Helper()
	ps := &policyServer{s: server.NewMCPServer("issues", "1.0.0", opts...), runs: map[string]*atomic.Int32{}, logs: &logbuf.Buffer{}}
	add := func(tool mcp.Tool) {
		n := new(atomic.Int32)
		ps.runs[tool.Name] = n
		ps.s.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n.Add(1)
			return mcp.NewToolResultText("ran " + tool.Name), nil
		})
	}
	add(mcp.NewTool("list_issues", mcp.WithReadOnlyHintAnnotation(true), mcp.WithString("repo")))
	add(mcp.NewTool("delete_repository", mcp.WithString("repo")))
	add(mcp.NewTool("forgotten")) // the policy says nothing of it
	add(mcp.NewTool("ping", mcp.WithReadOnlyHintAnnotation(true)))
	ps.s.AddPrompt(mcp.NewPrompt("triage"), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return mcp.NewGetPromptResult("triage", nil), nil
	})
	ps.s.AddPrompt(mcp.NewPrompt("secret_prompt"), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return mcp.NewGetPromptResult("secret", nil), nil
	})
	for _, uri := range []string{"repo://acme/readme", "admin://audit"} {
		ps.s.AddResource(mcp.NewResource(uri, uri), func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "x"}}, nil
		})
	}
	mcpgo.Attach(ps.s, wrap.New(wrap.WithLogger(ps.logs.Logger()), wrap.WithAuthorization(p)))
	return ps
}

func issuesPolicy() authz.Policy {
	return authz.Policy{
		Tools:     map[string][]string{"list_issues": {"issues:read"}, "delete_repository": {"repo:admin"}},
		Prompts:   map[string][]string{"triage": {"issues:read"}, "secret_prompt": {"repo:admin"}},
		Resources: map[string][]string{"repo://*": {"issues:read"}, "admin://audit": {"repo:admin"}},
		Public:    []string{"ping"},
	}
}

// serve serves ps over streamable HTTP behind the stand-in verifier.
func (ps *policyServer) serve(t *testing.T, opts ...server.StreamableHTTPOption) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: standIn(server.NewStreamableHTTPServer(ps.s, opts...)), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

func connectAs(t *testing.T, url, token string, opts ...client.ClientOption) *client.Client {
	t.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return testserver.Connect(t, url, h, opts...)
}

func toolNames(t *testing.T, cl *client.Client) []string {
	t.Helper()
	res, err := cl.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

// TestListsFollowThePolicy: each caller is listed exactly the tools,
// prompts and resources it may use, stateful and stateless.
func TestListsFollowThePolicy(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		name := "stateful"
		if stateless {
			name = "stateless"
		}
		t.Run(name, func(t *testing.T) {
			ps := newPolicyServer(t, issuesPolicy())
			url := ps.serve(t, server.WithStateLess(stateless))
			for token, want := range map[string][]string{
				"":       {"ping"},
				"reader": {"list_issues", "ping"},
				"admin":  {"delete_repository", "list_issues", "ping"},
			} {
				cl := connectAs(t, url, token)
				if got := toolNames(t, cl); !slices.Equal(got, want) {
					t.Errorf("caller %q is listed tools %v, want %v", token, got, want)
				}
				prompts, err := cl.ListPrompts(context.Background(), mcp.ListPromptsRequest{})
				if err != nil {
					t.Fatal(err)
				}
				resources, err := cl.ListResources(context.Background(), mcp.ListResourcesRequest{})
				if err != nil {
					t.Fatal(err)
				}
				wantPrompts, wantResources := 0, 0
				switch token {
				case "reader":
					wantPrompts, wantResources = 1, 1
				case "admin":
					wantPrompts, wantResources = 2, 2
				}
				if len(prompts.Prompts) != wantPrompts || len(resources.Resources) != wantResources {
					t.Errorf("caller %q is listed %d prompts and %d resources, want %d and %d", token,
						len(prompts.Prompts), len(resources.Resources), wantPrompts, wantResources)
				}
			}
		})
	}
}

// rpcError returns the JSON-RPC error a call got, as the client saw it.
func rpcError(t *testing.T, cl *client.Client, tool string) string {
	t.Helper()
	_, err := cl.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool}})
	if err == nil {
		t.Fatalf("calling %s succeeded, want a JSON-RPC error", tool)
	}
	return err.Error()
}

// TestHiddenToolIsAnsweredAsUnknown: a tool the caller may not use,
// called by name, gets the answer a tool that does not exist gets, word
// for word, and its handler never runs; the log line says why.
func TestHiddenToolIsAnsweredAsUnknown(t *testing.T) {
	ps := newPolicyServer(t, issuesPolicy())
	url := ps.serve(t)
	cl := connectAs(t, url, "reader")
	hidden := rpcError(t, cl, "delete_repository")
	unknown := rpcError(t, cl, "no_such_tool")
	if want := strings.ReplaceAll(unknown, "no_such_tool", "delete_repository"); hidden != want {
		t.Fatalf("hidden tool answered %q, an unknown one %q", hidden, unknown)
	}
	if undeclared := rpcError(t, connectAs(t, url, "admin"), "forgotten"); !strings.Contains(undeclared, "not found") {
		t.Fatalf("undeclared tool answered %q", undeclared)
	}
	for _, tool := range []string{"delete_repository", "forgotten"} {
		if n := ps.runs[tool].Load(); n != 0 {
			t.Errorf("%s ran %d times", tool, n)
		}
	}
	lines, err := ps.logs.Find("tool", "delete_repository")
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 {
		t.Fatalf("%d lines for the hidden call: %s", len(lines), ps.logs.String())
	}
	a, _ := lines[0]["authz"].(map[string]any)
	if a["decision"] != "hidden" || a["reason"] != "scope" || a["subject"] != "alice" ||
		!slices.Equal(anyStrings(a["missing"]), []string{"repo:admin"}) {
		t.Fatalf("authz of the hidden call: %v", a)
	}
	if strings.Contains(ps.logs.String(), "acme") {
		t.Fatalf("a claim reached the log: %s", ps.logs.String())
	}
	if warn, _ := ps.logs.Find("level", "WARN"); !strings.Contains(ps.logs.String(), "no policy declares tools/call forgotten") || len(warn) == 0 {
		t.Fatalf("no start-up warning names the undeclared tool: %s", ps.logs.String())
	}
}

func anyStrings(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, s := range l {
		str, _ := s.(string)
		out = append(out, str)
	}
	return out
}

// TestStepUpNamesTheMissingScope: with StepUp a caller sees the tool and
// a call is answered permission_denied naming the missing scope, never
// the token or its claims.
func TestStepUpNamesTheMissingScope(t *testing.T) {
	p := issuesPolicy()
	p.StepUp = true
	ps := newPolicyServer(t, p)
	url := ps.serve(t)
	cl := connectAs(t, url, "reader")
	if got := toolNames(t, cl); !slices.Contains(got, "delete_repository") {
		t.Fatalf("step-up lists %v, want delete_repository among them", got)
	}
	res, err := cl.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "delete_repository"}})
	if err != nil {
		t.Fatal(err)
	}
	info, ok := mcpgo.InfoOf(res)
	if !ok || info.Code != "permission_denied" || !strings.Contains(info.Message, "repo:admin") {
		t.Fatalf("answer %+v (%v)", info, ok)
	}
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), "reader") || strings.Contains(string(b), "acme") || strings.Contains(string(b), "alice") {
		t.Fatalf("the answer holds the token, a claim or the subject: %s", b)
	}
	if n := ps.runs["delete_repository"].Load(); n != 0 {
		t.Fatalf("denied tool ran %d times", n)
	}
}

// TestCheckDecidesOnClaimsAndArguments: a Check sees the caller's claims
// and the call's arguments; its refusal is the model's answer.
func TestCheckDecidesOnClaimsAndArguments(t *testing.T) {
	p := issuesPolicy()
	p.Check = func(ctx context.Context, c authz.Caller, r authz.Request) error {
		if r.Listing || r.Method != "tools/call" {
			return nil
		}
		var args struct{ Repo string }
		_ = json.Unmarshal(r.Arguments, &args)
		if args.Repo != "" && !strings.HasPrefix(args.Repo, c.Claims["tenant"].(string)+"/") {
			return errors.New("this token may only reach repositories of its own tenant")
		}
		return nil
	}
	ps := newPolicyServer(t, p)
	url := ps.serve(t)
	cl := connectAs(t, url, "other")
	call := func(repo string) *mcp.CallToolResult {
		res, err := cl.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "list_issues", Arguments: map[string]any{"repo": repo}}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call("globex/site"); res.IsError {
		t.Fatalf("own tenant refused: %+v", res)
	}
	res := call("acme/secret")
	info, _ := mcpgo.InfoOf(res)
	if !res.IsError || info.Code != "permission_denied" || !strings.Contains(info.Message, "own tenant") {
		t.Fatalf("other tenant: %+v", info)
	}
	if n := ps.runs["list_issues"].Load(); n != 1 {
		t.Fatalf("list_issues ran %d times, want 1", n)
	}
}

// TestReadOnlyModeAllowsOnlyReadOnlyTools: the read-only mode hides every
// tool not annotated readOnlyHint, whatever the caller's scopes.
func TestReadOnlyModeAllowsOnlyReadOnlyTools(t *testing.T) {
	p := issuesPolicy()
	p.ReadOnly = true
	ps := newPolicyServer(t, p)
	url := ps.serve(t)
	cl := connectAs(t, url, "admin")
	if got := toolNames(t, cl); !slices.Equal(got, []string{"list_issues", "ping"}) {
		t.Fatalf("read-only lists %v", got)
	}
	_ = rpcError(t, cl, "delete_repository")
	if n := ps.runs["delete_repository"].Load(); n != 0 {
		t.Fatalf("delete_repository ran %d times in read-only mode", n)
	}
}

// TestCheckSeesTheAnnotationsOnACall: a Check is given the tool's
// annotations on a call as it is in a list, so that a policy on them (a
// forbid of destructive tools) decides both alike; the call path once
// passed them only in read-only mode or with Confirm.Destructive.
func TestCheckSeesTheAnnotationsOnACall(t *testing.T) {
	p := issuesPolicy()
	var calls, lists atomic.Int32
	p.Check = func(ctx context.Context, c authz.Caller, r authz.Request) error {
		if r.Name != "list_issues" {
			return nil
		}
		n := &calls
		if r.Listing {
			n = &lists
		}
		if r.Annotations.Known && r.Annotations.ReadOnly {
			n.Add(1)
		}
		return nil
	}
	ps := newPolicyServer(t, p)
	cl := connectAs(t, ps.serve(t), "reader")
	_ = toolNames(t, cl)
	if _, err := cl.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "list_issues"}}); err != nil {
		t.Fatal(err)
	}
	if lists.Load() == 0 || calls.Load() != 1 {
		t.Fatalf("Check saw list_issues as read-only in %d lists and %d calls, want some and 1", lists.Load(), calls.Load())
	}
}
