package gosdk_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// tokens are what the test's stand-in verifier accepts: the policy is
// under test here; package jwtauth's tests verify real tokens.
var tokens = map[string]*auth.TokenInfo{
	"reader": {UserID: "alice", Scopes: []string{"issues:read"}, Expiration: time.Now().Add(time.Hour)},
	"admin":  {UserID: "bob", Scopes: []string{"issues:read", "repo:admin"}, Expiration: time.Now().Add(time.Hour)},
}

func standInVerifier(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
	if ti, ok := tokens[tok]; ok {
		return ti, nil
	}
	return nil, auth.ErrInvalidToken
}

type authzServer struct {
	s    *mcp.Server
	runs map[string]*atomic.Int32
	logs *logbuf.Buffer
}

// newAuthzServer builds a go-sdk server the way github-mcp-server does
// (plain Server.AddTool, annotations on the tool), attached to a Wrapper
// with policy p.
func newAuthzServer(t *testing.T, p authz.Policy) *authzServer {
	t.Helper()
	as := &authzServer{s: mcp.NewServer(&mcp.Implementation{Name: "issues", Version: "1.0.0"}, nil),
		runs: map[string]*atomic.Int32{}, logs: &logbuf.Buffer{}}
	obj := map[string]any{"type": "object"}
	add := func(name string, ann *mcp.ToolAnnotations) {
		n := new(atomic.Int32)
		as.runs[name] = n
		as.s.AddTool(&mcp.Tool{Name: name, InputSchema: obj, Annotations: ann}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n.Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran " + name}}}, nil
		})
	}
	add("list_issues", &mcp.ToolAnnotations{ReadOnlyHint: true})
	add("delete_repository", nil)
	add("forgotten", nil)
	add("ping", &mcp.ToolAnnotations{ReadOnlyHint: true})
	as.s.AddPrompt(&mcp.Prompt{Name: "triage"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	as.s.AddResource(&mcp.Resource{URI: "admin://audit", Name: "audit"}, func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "x"}}}, nil
	})
	gosdk.Attach(as.s, wrap.New(wrap.WithLogger(as.logs.Logger()), wrap.WithAuthorization(p)))
	return as
}

func goPolicy() authz.Policy {
	return authz.Policy{
		Tools:     map[string][]string{"list_issues": {"issues:read"}, "delete_repository": {"repo:admin"}},
		Prompts:   map[string][]string{"triage": {"issues:read"}},
		Resources: map[string][]string{"admin://*": {"repo:admin"}},
		Public:    []string{"ping"},
	}
}

// serve serves as over streamable HTTP behind go-sdk's own
// auth.RequireBearerToken.
func (as *authzServer) serve(t *testing.T, stateless bool) string {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return as.s }, &mcp.StreamableHTTPOptions{Stateless: stateless})
	return serveBehindBearer(t, standInVerifier, h)
}

// serveBehindBearer serves h on loopback behind go-sdk's own
// auth.RequireBearerToken with verify, until the test ends, and returns
// its URL.
func serveBehindBearer(t testing.TB, verify auth.TokenVerifier, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: auth.RequireBearerToken(verify, nil)(h), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String()
}

// connectAs connects a real go-sdk client made with opts to url, with tok
// as its bearer credential unless tok is empty.
func connectAs(t testing.TB, url, tok string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	hc := &http.Client{Transport: http.DefaultTransport}
	if tok != "" {
		hc.Transport = bearer{tok, http.DefaultTransport}
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func names(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return adaptercases.SortedNames(res.Tools, func(tl *mcp.Tool) string { return tl.Name })
}

// TestGoSDKListsAndCallsFollowThePolicy: on go-sdk too, each caller is
// listed what it may use, stateful and stateless; a hidden tool called by
// name gets go-sdk's own unknown-tool answer and never runs.
func TestGoSDKListsAndCallsFollowThePolicy(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateful", true: "stateless"}[stateless], func(t *testing.T) {
			as := newAuthzServer(t, goPolicy())
			url := as.serve(t, stateless)
			reader := connectAs(t, url, "reader", nil)
			if got := names(t, reader); !slices.Equal(got, []string{"list_issues", "ping"}) {
				t.Errorf("reader is listed %v", got)
			}
			if got := names(t, connectAs(t, url, "admin", nil)); !slices.Equal(got, []string{"delete_repository", "list_issues", "ping"}) {
				t.Errorf("admin is listed %v", got)
			}
			res, err := reader.ListResources(context.Background(), nil)
			if err != nil || len(res.Resources) != 0 {
				t.Errorf("reader is listed resources %v (%v)", res, err)
			}
			// A session each: go-sdk v1.7.0's client closes its session on
			// the HTTP 400 its stateless server answers an unknown tool with.
			_, hidden := connectAs(t, url, "reader", nil).CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_repository"})
			_, unknown := connectAs(t, url, "reader", nil).CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"})
			adaptercases.CheckAnsweredAsUnknown(t, hidden, unknown, "delete_repository", "no_such_tool")
			_, hiddenRes := connectAs(t, url, "reader", nil).ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "admin://audit"})
			_, unknownRes := connectAs(t, url, "reader", nil).ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "admin://nothing"})
			adaptercases.CheckAnsweredAsUnknown(t, hiddenRes, unknownRes, "admin://audit", "admin://nothing")
			ok, err := reader.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_issues"})
			if err != nil || ok.IsError {
				t.Fatalf("allowed call: %+v, %v", ok, err)
			}
			if as.runs["delete_repository"].Load() != 0 || as.runs["list_issues"].Load() != 1 {
				t.Fatalf("runs: delete_repository %d, list_issues %d", as.runs["delete_repository"].Load(), as.runs["list_issues"].Load())
			}
			lines, _ := as.logs.Find("tool", "delete_repository")
			if len(lines) != 1 {
				t.Fatalf("lines of the hidden call: %s", as.logs.String())
			}
			if a, _ := lines[0]["authz"].(map[string]any); a["decision"] != "hidden" || a["subject"] != "alice" {
				t.Fatalf("authz of the hidden call: %v", a)
			}
		})
	}
}

// TestConfirmDestructiveCalls: a destructive tool runs only after the
// user confirms through elicitation; a decline, and a client that cannot
// elicit, get permission_denied, and the decision is in the log line.
func TestConfirmDestructiveCalls(t *testing.T) {
	p := goPolicy()
	p.Confirm = authz.Confirm{Destructive: true}
	as := newAuthzServer(t, p)
	url := as.serve(t, false)
	var asked atomic.Value
	answer := func(accept bool) *mcp.ClientOptions {
		return &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Store(r.Params.Message)
			if accept {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
			}
			return &mcp.ElicitResult{Action: "decline"}, nil
		}}
	}
	call := func(cs *mcp.ClientSession) *mcp.CallToolResult {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_repository", Arguments: map[string]any{"repo": "acme/site"}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call(connectAs(t, url, "admin", answer(true))); res.IsError {
		t.Fatalf("confirmed call: %+v", res)
	}
	if m, _ := asked.Load().(string); !strings.Contains(m, "delete_repository") || !strings.Contains(m, "repo") {
		t.Fatalf("the user was asked %q", m)
	}
	for name, opts := range map[string]*mcp.ClientOptions{"declined": answer(false), "unconfirmable": nil} {
		res := call(connectAs(t, url, "admin", opts))
		info, _ := gosdk.InfoOf(res)
		if !res.IsError || info.Code != "permission_denied" {
			t.Fatalf("%s call: %+v", name, info)
		}
	}
	if n := as.runs["delete_repository"].Load(); n != 1 {
		t.Fatalf("delete_repository ran %d times, want 1 (the confirmed call)", n)
	}
	if n := as.runs["list_issues"].Load(); n != 0 {
		t.Fatal("unexpected run")
	}
	var decisions []string
	lines, _ := as.logs.Find("tool", "delete_repository")
	for _, l := range lines {
		a, _ := l["authz"].(map[string]any)
		d, _ := a["decision"].(string)
		decisions = append(decisions, d)
	}
	slices.Sort(decisions)
	if !slices.Equal(decisions, []string{"confirmed", "declined", "denied"}) {
		t.Fatalf("decisions logged: %v\n%s", decisions, as.logs.String())
	}
	// A read-only tool is never asked about.
	if res, err := connectAs(t, url, "admin", answer(false)).CallTool(context.Background(), &mcp.CallToolParams{Name: "list_issues"}); err != nil || res.IsError {
		t.Fatalf("read-only call under confirmation: %+v %v", res, err)
	}
}

// TestStdioCallerIsTheProcessOwner: over stdio (gosdk.Run) no token is
// presented; the caller is the process owner, granted Policy.Local and
// nothing else.
func TestStdioCallerIsTheProcessOwner(t *testing.T) {
	if os.Getenv("AUTHZ_STDIO_CHILD") == "1" {
		p := goPolicy()
		p.Local = []string{"issues:read"}
		s := mcp.NewServer(&mcp.Implementation{Name: "issues", Version: "1.0.0"}, nil)
		for _, name := range []string{"list_issues", "delete_repository", "ping"} {
			s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
			})
		}
		w := wrap.New(wrap.WithLogger(slog.New(slog.NewJSONHandler(os.Stderr, nil))), wrap.WithAuthorization(p))
		if os.Getenv("AUTHZ_STDIO_PLAIN") == "1" { // as its authors ship it: s.Run
			gosdk.Attach(s, w)
			_ = s.Run(context.Background(), &mcp.StdioTransport{})
		} else {
			_ = gosdk.Run(context.Background(), s, w, &mcp.StdioTransport{})
		}
		os.Exit(0)
	}
	for _, plain := range []string{"0", "1"} {
		t.Run("plain="+plain, func(t *testing.T) { stdioOwner(t, plain) })
	}
}

func stdioOwner(t *testing.T, plain string) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestStdioCallerIsTheProcessOwner$")
	cmd.Env = append(os.Environ(), "AUTHZ_STDIO_CHILD=1", "AUTHZ_STDIO_PLAIN="+plain)
	var stderr logbuf.Buffer
	cmd.Stderr = &stderr
	cl := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := cl.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := names(t, cs); !slices.Equal(got, []string{"list_issues", "ping"}) {
		t.Fatalf("the process owner is listed %v", got)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "delete_repository"}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Fatalf("delete_repository over stdio: %v", err)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_issues"}); err != nil || res.IsError {
		t.Fatalf("list_issues over stdio: %+v %v", res, err)
	}
	_ = cs.Close()
	_ = cmd.Wait()
	if !strings.Contains(stderr.String(), `"subject":"uid:`) {
		t.Fatalf("the log line does not name the process owner: %s", stderr.String())
	}
}

// TestGoSDKReadOnlyMode: read-only mode lists and runs only the tools
// annotated readOnlyHint, whatever the token, answers the others as
// unknown, and warns once, at the first list, of each tool it hides from
// everyone.
func TestGoSDKReadOnlyMode(t *testing.T) {
	p := goPolicy()
	p.ReadOnly = true
	as := newAuthzServer(t, p)
	url := as.serve(t, false)
	admin := connectAs(t, url, "admin", nil)
	listed := names(t, admin)
	_ = names(t, connectAs(t, url, "reader", nil))
	_, err := admin.CallTool(context.Background(), &mcp.CallToolParams{Name: "delete_repository"})
	adaptercases.CheckReadOnlyMode(t, listed, err, "unknown tool", as.runs["delete_repository"], as.logs)
}

// sseServer serves s over go-sdk's SSE transport on loopback.
func sseServer(t *testing.T, s *mcp.Server) string {
	t.Helper()
	srv := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

func sseClient(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	return connectTo(t, &mcp.SSEClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}})
}

// TestSSEClientIsNotTheProcessOwner: go-sdk's SSE transport gives a
// request no HTTP headers, which the adapter took for stdio: every SSE
// client was the process owner, granted Policy.Local, and all of them
// shared one cache identity. An SSE client is anonymous unless a verifier
// says who it is; the process owner stays stdio's.
func TestSSEClientIsNotTheProcessOwner(t *testing.T) {
	var runs atomic.Int64
	s := mcp.NewServer(&mcp.Implementation{Name: "ops", Version: "1.0.0"}, nil)
	gosdk.Attach(s, wrap.New(wrap.WithCache(wrap.Cache{TTL: time.Minute}),
		wrap.WithAuthorization(authz.Policy{Tools: map[string][]string{"drop_table": {"admin"}}, Public: []string{"whoami"}, Local: []string{"admin"}})))
	for _, name := range []string{"drop_table", "whoami"} {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				runs.Add(1)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil
			})
	}
	url := sseServer(t, s)
	alice, bob := sseClient(t, url, "alice"), sseClient(t, url, "bob")
	res, err := alice.CallTool(context.Background(), &mcp.CallToolParams{Name: "drop_table", Arguments: map[string]any{}})
	if err == nil && !res.IsError {
		t.Fatalf("an SSE client without a verified token ran drop_table with the process owner's scopes: %s", resultText(res))
	}
	if err != nil && !strings.Contains(err.Error(), "unknown tool") {
		t.Fatalf("drop_table over SSE: %v, want the unknown-tool answer", err)
	}
	a := callTool(t, alice, "whoami", map[string]any{})
	b := callTool(t, bob, "whoami", map[string]any{})
	if a.Meta["mcpwrap/cache"] != nil || b.Meta["mcpwrap/cache"] != nil || runs.Load() != 2 {
		t.Fatalf("SSE clients shared a kept answer: alice %v, bob %v, %d runs; want two runs and no cached answer", a.Meta, b.Meta, runs.Load())
	}
}

// TestPanickingCheckIsAnsweredAsUnknown: a Policy.Check that panics hides
// what it was asked about, on go-sdk as on mcp-go (whose list filter,
// asked before a tools/call, can only hide): the call gets go-sdk's own
// unknown-name answer, not isError "the authorization check failed", the
// handler does not run, and the log line says decision=hidden
// reason=check_panic.
func TestPanickingCheckIsAnsweredAsUnknown(t *testing.T) {
	p := goPolicy()
	p.Check = adaptercases.PanickingCheck("list_issues", "triage")
	as := newAuthzServer(t, p)
	cs := connectAs(t, as.serve(t, false), "reader", nil)
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_issues"})
	_, unknown := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"})
	adaptercases.CheckAnsweredAsUnknown(t, err, unknown, "list_issues", "no_such_tool")
	_, err = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "triage"})
	_, unknown = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "nothing"})
	adaptercases.CheckAnsweredAsUnknown(t, err, unknown, "triage", "nothing")
	adaptercases.CheckHiddenByPanic(t, as.logs, "list_issues", as.runs["list_issues"])
}

// TestDeniedResourceLineNamesTheURI: the line of a denied read names the
// resource: a URI whose scheme looks like a credential's key
// ("secret://deploy-keys") was logged as "secret:[REDACTED]".
func TestDeniedResourceLineNamesTheURI(t *testing.T) {
	p := goPolicy()
	p.Resources["secret://*"] = []string{"repo:admin"}
	as := newAuthzServer(t, p)
	as.s.AddResource(&mcp.Resource{URI: adaptercases.SecretURI, Name: "deploy keys"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	cs := connectAs(t, as.serve(t, false), "reader", nil)
	_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: adaptercases.SecretURI})
	adaptercases.CheckDeniedLineNamesURI(t, err, as.logs)
}

// TestMadeUpNamesCannotFloodTheLog: go-sdk hands the middleware every
// prompts/get and resources/read before it looks the name up, and a
// client naming made-up prompts and URIs (some of them URIs a resource
// template serves) made the server warn "no policy declares …" per name:
// 1 200 requests wrote 900 such lines. The warnings name what the server
// registered and the policy forgot, each once: the tool, the prompt, the
// resource and the template that serves the URIs.
func TestMadeUpNamesCannotFloodTheLog(t *testing.T) {
	as := newAuthzServer(t, goPolicy())
	as.s.AddPrompt(&mcp.Prompt{Name: "draft"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	as.s.AddResource(&mcp.Resource{URI: "notes://today", Name: "today"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	as.s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "users://{id}", Name: "user"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	cs := connectAs(t, as.serve(t, false), "admin", nil)
	ctx := context.Background()
	adaptercases.CheckMadeUpNamesCannotFlood(t, adaptercases.ByName{
		CallTool: func(name string) error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name})
			return err
		},
		GetPrompt: func(name string) error {
			_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name})
			return err
		},
		ReadResource: func(uri string) error {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			return err
		},
	}, "resources/read users://{id}", as.logs)
}

// TestUnknownNamesLeaveNoWarning: go-sdk hands the middleware every
// tools/call, names the server does not have included. A client calling
// made-up names gets go-sdk's unknown-tool answer and must not make the
// server warn that "no policy declares" them: each such warning is a log
// line and an entry the policy remembers for the life of the process, so
// a client could fill the log and the memory with names of its choosing.
// The one tool the server has and the policy forgot is warned of, by the
// first tools/list already.
func TestUnknownNamesLeaveNoWarning(t *testing.T) {
	as := newAuthzServer(t, goPolicy())
	url := as.serve(t, false)
	cs := connectAs(t, url, "reader", nil)
	_ = names(t, cs)
	if !strings.Contains(as.logs.String(), "no policy declares tools/call forgotten") {
		t.Errorf("no warning names the undeclared tool after tools/list: %s", as.logs.String())
	}
	for i := range 200 {
		name := fmt.Sprintf("made_up_%d", i)
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("unknown tool %q", name)) {
			t.Fatalf("calling %s: %v", name, err)
		}
	}
	if n := strings.Count(as.logs.String(), "no policy declares tools/call made_up_"); n != 0 {
		t.Fatalf("%d warnings name tools the server does not have", n)
	}
}
