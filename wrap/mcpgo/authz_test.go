package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/benchmix"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/observe"
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

// connect serves ps (stateful) and connects a client as token.
func (ps *policyServer) connect(t *testing.T, token string) *client.Client {
	t.Helper()
	return testserver.ConnectAs(t, ps.serve(t), token)
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
				cl := testserver.ConnectAs(t, url, token)
				if got := testserver.ToolNames(t, cl); !slices.Equal(got, want) {
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
	cl := testserver.ConnectAs(t, url, "reader")
	hidden := rpcError(t, cl, "delete_repository")
	unknown := rpcError(t, cl, "no_such_tool")
	if want := strings.ReplaceAll(unknown, "no_such_tool", "delete_repository"); hidden != want {
		t.Fatalf("hidden tool answered %q, an unknown one %q", hidden, unknown)
	}
	_, hiddenRes := cl.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "admin://audit"}})
	_, unknownRes := cl.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "admin://nothing"}})
	adaptercases.CheckAnsweredAsUnknown(t, hiddenRes, unknownRes, "admin://audit", "admin://nothing")
	_, hiddenPrompt := cl.GetPrompt(context.Background(), mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "secret_prompt"}})
	_, unknownPrompt := cl.GetPrompt(context.Background(), mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: "nothing"}})
	adaptercases.CheckAnsweredAsUnknown(t, hiddenPrompt, unknownPrompt, "'secret_prompt'", "'nothing'")
	if undeclared := rpcError(t, testserver.ConnectAs(t, url, "admin"), "forgotten"); !strings.Contains(undeclared, "not found") {
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
	cl := ps.connect(t, "reader")
	if got := testserver.ToolNames(t, cl); !slices.Contains(got, "delete_repository") {
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
	cl := ps.connect(t, "other")
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
	cl := ps.connect(t, "admin")
	listed := testserver.ToolNames(t, cl)
	_, err := cl.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "delete_repository"}})
	// Hidden from every caller whatever its token: said once, at start-up.
	adaptercases.CheckReadOnlyMode(t, listed, err, "not found", ps.runs["delete_repository"], ps.logs)
}

type elicitor struct {
	accept bool
	asked  atomic.Value
}

func (e *elicitor) Elicit(_ context.Context, r mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	e.asked.Store(r.Params.Message)
	if !e.accept {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, nil
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"confirm": true}}}, nil
}

// TestConfirmDestructiveCallsOnMCPGo: mcp-go's NewTool marks a tool
// destructive unless told otherwise; under Confirm.Destructive such a call
// runs only once the user confirms through elicitation; a decline and a
// client without elicitation get permission_denied. Clients of
// 2025-11-25 (which take server requests) are asked.
func TestConfirmDestructiveCallsOnMCPGo(t *testing.T) {
	p := issuesPolicy()
	p.Confirm = authz.Confirm{Destructive: true}
	ps := newPolicyServer(t, p, server.WithElicitation())
	url := ps.serve(t)
	call := func(opts ...client.ClientOption) *mcp.CallToolResult {
		opts = append(opts, client.WithProtocolVersion("2025-11-25"))
		res, err := testserver.ConnectAs(t, url, "admin", opts...).CallTool(context.Background(),
			mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "delete_repository", Arguments: map[string]any{"repo": "acme/site"}}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	yes := &elicitor{accept: true}
	if res := call(client.WithElicitationHandler(yes)); res.IsError {
		t.Fatalf("confirmed call: %+v", res)
	}
	if m, _ := yes.asked.Load().(string); !strings.Contains(m, "delete_repository") || !strings.Contains(m, "repo") {
		t.Fatalf("the user was asked %q", m)
	}
	for name, res := range map[string]*mcp.CallToolResult{
		"declined":      call(client.WithElicitationHandler(&elicitor{})),
		"unconfirmable": call(),
	} {
		info, _ := mcpgo.InfoOf(res)
		if !res.IsError || info.Code != "permission_denied" {
			t.Errorf("%s call: %+v", name, info)
		}
	}
	if n := ps.runs["delete_repository"].Load(); n != 1 {
		t.Fatalf("delete_repository ran %d times, want 1", n)
	}
	lines, _ := ps.logs.Find("tool", "delete_repository")
	var got []string
	for _, l := range lines {
		a, _ := l["authz"].(map[string]any)
		got = append(got, a["decision"].(string))
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"confirmed", "declined", "denied"}) {
		t.Fatalf("decisions %v", got)
	}
}

// TestStdioCallerIsTheProcessOwnerOnMCPGo: over stdio the caller is the
// owner of the process, granted Policy.Local only, whether the server is
// served by mcpgo.ServeStdio or, as its authors ship it, by mcp-go's own
// server.ServeStdio (TestPlainServeStdioCallerIsTheProcessOwner guards the
// latter's session check).
func TestStdioCallerIsTheProcessOwnerOnMCPGo(t *testing.T) {
	if mode := os.Getenv("AUTHZ_STDIO_CHILD"); mode != "" {
		p := issuesPolicy()
		p.Local = []string{"issues:read"}
		s := server.NewMCPServer("issues", "1.0.0")
		for _, tl := range []mcp.Tool{mcp.NewTool("list_issues"), mcp.NewTool("delete_repository"), mcp.NewTool("ping")} {
			s.AddTool(tl, func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return mcp.NewToolResultText("ran"), nil
			})
		}
		logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
		mcpgo.Attach(s, wrap.New(wrap.WithLogger(logger), wrap.WithAuthorization(p)))
		if mode == "plain" {
			_ = server.ServeStdio(s)
		} else {
			_ = mcpgo.ServeStdio(s, logger)
		}
		os.Exit(0)
	}
	for _, mode := range []string{"mcpgo", "plain"} {
		t.Run(mode, func(t *testing.T) {
			cl, err := client.NewStdioMCPClient(os.Args[0], append(os.Environ(), "AUTHZ_STDIO_CHILD="+mode), "-test.run=^TestStdioCallerIsTheProcessOwnerOnMCPGo$")
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if _, err := cl.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{ClientInfo: mcp.Implementation{Name: "t", Version: "0"}}}); err != nil {
				t.Fatal(err)
			}
			if got := testserver.ToolNames(t, cl); !slices.Equal(got, []string{"list_issues", "ping"}) {
				t.Fatalf("the process owner is listed %v", got)
			}
			if _, err := cl.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "delete_repository"}}); err == nil || !strings.Contains(err.Error(), "not found") {
				t.Fatalf("delete_repository over stdio: %v", err)
			}
			if res, err := cl.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "list_issues"}}); err != nil || res.IsError {
				t.Fatalf("list_issues over stdio: %+v %v", res, err)
			}
		})
	}
}

// BenchmarkAuthorizedCall measures what the policy adds to an allowed
// call: the same typed tool through HandleMessage on one session, the
// Wrapper without a policy and with one (the caller in the context, as a
// verifier leaves it), the forms taking turns call by call; it reports
// each form's median and the policy's overhead (%).
//
//	go test -run '^$' -bench AuthorizedCall -benchtime 20000x ./wrap/mcpgo/
func BenchmarkAuthorizedCall(b *testing.B) {
	p := authz.Policy{Tools: map[string][]string{"forecast": {"weather:read"}, "other": {"x"}}}
	names := []string{"wrapped", "authorized"}
	var servers []*server.MCPServer
	for _, w := range []*wrap.Wrapper{wrap.New(), wrap.New(wrap.WithAuthorization(p))} {
		s := server.NewMCPServer("bench", "1.0.0", attached(w))
		s.AddTools(mcpgo.Typed(w, mcp.NewTool("forecast"), benchForecast))
		servers = append(servers, s)
	}
	caller := authz.Caller{Subject: "alice", Scopes: []string{"openid", "weather:read"}}
	ctxs := make([]context.Context, len(servers))
	for i, s := range servers {
		ctxs[i] = authz.NewContext(sessionContext(b, s, "bench-session"), caller)
	}
	b.ReportAllocs()
	benchmix.Run(b, names, func(i int) error { return handle(ctxs[i], servers[i]) })
}

// TestDecisionInSpanAndMetric: the decision, the subject and the scopes are
// span attributes, and every request the policy did not allow counts in
// mcpwrap.authz.denials by tool and reason; no claim reaches either.
func TestDecisionInSpanAndMetric(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	reader := sdkmetric.NewManualReader()
	p := issuesPolicy()
	p.StepUp = true
	s := server.NewMCPServer("issues", "1.0.0")
	for _, name := range []string{"list_issues", "delete_repository"} {
		s.AddTool(mcp.NewTool(name), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("ran"), nil
		})
	}
	mcpgo.Attach(s, wrap.New(wrap.WithAuthorization(p), wrap.WithTelemetry(
		observe.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))),
		observe.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))))))
	ps := &policyServer{s: s}
	cl := ps.connect(t, "reader")
	for _, tool := range []string{"list_issues", "delete_repository", "delete_repository"} {
		if _, err := cl.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool}}); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string]map[attribute.Key]attribute.Value{}
	for _, sp := range spans.Ended() {
		m := map[attribute.Key]attribute.Value{}
		for _, kv := range sp.Attributes() {
			m[kv.Key] = kv.Value
			if strings.Contains(kv.Value.Emit(), "acme") {
				t.Errorf("a claim in span attribute %s", kv.Key)
			}
		}
		got[sp.Name()] = m
	}
	allowed, denied := got["tools/call list_issues"], got["tools/call delete_repository"]
	if allowed["mcpwrap.authz.decision"].AsString() != "allowed" || allowed["mcpwrap.authz.subject"].AsString() != "alice" {
		t.Fatalf("allowed span: %v", allowed)
	}
	if denied["mcpwrap.authz.decision"].AsString() != "denied" || !slices.Equal(denied["mcpwrap.authz.missing_scopes"].AsStringSlice(), []string{"repo:admin"}) ||
		!slices.Equal(denied["mcpwrap.authz.granted_scopes"].AsStringSlice(), []string{"issues:read"}) {
		t.Fatalf("denied span: %v", denied)
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var denials int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "mcpwrap.authz.denials" {
				continue
			}
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				tool, _ := dp.Attributes.Value("gen_ai.tool.name")
				reason, _ := dp.Attributes.Value("mcpwrap.authz.reason")
				if tool.AsString() != "delete_repository" || reason.AsString() != "scope" {
					t.Errorf("denial point %v", dp.Attributes)
				}
				denials += dp.Value
			}
		}
	}
	if denials != 2 {
		t.Fatalf("%d denials counted, want 2", denials)
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
	cl := ps.connect(t, "reader")
	_ = testserver.ToolNames(t, cl)
	if _, err := cl.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "list_issues"}}); err != nil {
		t.Fatal(err)
	}
	if lists.Load() == 0 || calls.Load() != 1 {
		t.Fatalf("Check saw list_issues as read-only in %d lists and %d calls, want some and 1", lists.Load(), calls.Load())
	}
}

// TestPanickingCheckIsAnsweredAsUnknownOnMCPGo: a Policy.Check that
// panics hides what it was asked about, on mcp-go as on go-sdk: the call
// gets mcp-go's own unknown-name answer, the handler does not run, and the
// log line says decision=hidden reason=check_panic. mcp-go asks its list
// filter before a tools/call, where a panic can only hide, so a Check
// that panicked for the call alone was answered isError "the
// authorization check failed" and one that panicked for the list too as
// an unknown tool.
func TestPanickingCheckIsAnsweredAsUnknownOnMCPGo(t *testing.T) {
	p := issuesPolicy()
	p.Check = adaptercases.PanickingCheck("list_issues", "repo://acme/readme")
	ps := newPolicyServer(t, p)
	cl := ps.connect(t, "reader")
	hidden := rpcError(t, cl, "list_issues")
	if want := strings.ReplaceAll(rpcError(t, cl, "no_such_tool"), "no_such_tool", "list_issues"); hidden != want {
		t.Fatalf("tools/call answered %q, want %q", hidden, want)
	}
	_, hiddenRes := cl.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "repo://acme/readme"}})
	_, unknownRes := cl.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "repo://acme/nothing"}})
	adaptercases.CheckAnsweredAsUnknown(t, hiddenRes, unknownRes, "repo://acme/readme", "repo://acme/nothing")
	adaptercases.CheckHiddenByPanic(t, ps.logs, "list_issues", ps.runs["list_issues"])
}

// TestDeniedResourceLineNamesTheURI: the line of a denied read names the
// resource: a URI whose scheme looks like a credential's key
// ("secret://deploy-keys") was logged as "secret:[REDACTED]".
func TestDeniedResourceLineNamesTheURI(t *testing.T) {
	p := issuesPolicy()
	p.Resources["secret://*"] = []string{"repo:admin"}
	ps := newPolicyServer(t, p)
	ps.s.AddResource(mcp.NewResource(adaptercases.SecretURI, "deploy keys"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return nil, nil
	})
	cl := ps.connect(t, "reader")
	_, err := cl.ReadResource(context.Background(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: adaptercases.SecretURI}})
	adaptercases.CheckDeniedLineNamesURI(t, err, ps.logs)
}

// TestMadeUpNamesCannotFloodTheLog: a client calling made-up tools,
// prompts and resource URIs (some of them URIs a resource template
// serves) made the server warn "no policy declares …" per name: 1 200
// requests wrote 300 such lines. The warnings name what the server
// registered and the policy forgot, each once: the tool, the prompt, the
// resource, and the template (mcp-go does not say which template serves a
// URI, so one line stands for its templates).
func TestMadeUpNamesCannotFloodTheLog(t *testing.T) {
	ps := newPolicyServer(t, issuesPolicy())
	ps.s.AddPrompt(mcp.NewPrompt("draft"), func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return mcp.NewGetPromptResult("draft", nil), nil
	})
	ps.s.AddResource(mcp.NewResource("notes://today", "today"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return nil, nil
	})
	ps.s.AddResourceTemplate(mcp.NewResourceTemplate("users://{id}", "user"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return nil, nil
	})
	cl := testserver.ConnectAs(t, ps.serve(t), "admin")
	ctx := context.Background()
	adaptercases.CheckMadeUpNamesCannotFlood(t, adaptercases.ByName{
		CallTool: func(name string) error {
			_, err := cl.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: name}})
			return err
		},
		GetPrompt: func(name string) error {
			_, err := cl.GetPrompt(ctx, mcp.GetPromptRequest{Params: mcp.GetPromptParams{Name: name}})
			return err
		},
		ReadResource: func(uri string) error {
			_, err := cl.ReadResource(ctx, mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: uri}})
			return err
		},
	}, "URIs a resource template serves", ps.logs)
}
