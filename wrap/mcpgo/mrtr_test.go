package mcpgo_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
	"github.com/mcpwrap/mcpwrap/wrap/outbound"
	"github.com/mcpwrap/mcpwrap/wrap/upstream"
)

// roundCallers are the identities the stand-in verifier of the
// multi round-trip tests gives a bearer token's text.
var roundCallers = map[string]authz.Caller{
	"admin":  {Subject: "bob", Scopes: []string{"repo:admin"}},
	"admin2": {Subject: "carol", Scopes: []string{"repo:admin"}},
	"reader": {Subject: "alice", Scopes: []string{"issues:read"}},
}

// roundServer is a server whose destructive tools the policy wants
// confirmed, with two tools that ask for input themselves (deploy, which
// needs confirmation too, and survey, which does not), and what their
// handlers ran and saw.
type roundServer struct {
	s     *server.MCPServer
	runs  map[string]*atomic.Int32
	logs  *logbuf.Buffer
	spans *tracetest.SpanRecorder
	mu    sync.Mutex
	seen  []string // what deploy's and survey's handlers saw: requestState and inputResponses' keys
}

func newRoundServer(t *testing.T, opts ...wrap.Option) *roundServer {
	t.Helper()
	rs := &roundServer{s: server.NewMCPServer("repos", "1.0.0", server.WithElicitation()), runs: map[string]*atomic.Int32{},
		logs: &logbuf.Buffer{}, spans: tracetest.NewSpanRecorder()}
	for _, name := range []string{"delete_repository", "drop_table", "flaky_delete"} {
		n := new(atomic.Int32)
		rs.runs[name] = n
		rs.s.AddTool(mcp.NewTool(name, mcp.WithString("repo")), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n.Add(1)
			if name == "flaky_delete" {
				return nil, errs.New(errs.Conflict, "the repository is locked")
			}
			return mcp.NewToolResultText("ran " + name), nil
		})
	}
	asking := func(name string) server.ToolHandlerFunc {
		n := new(atomic.Int32)
		rs.runs[name] = n
		return func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n.Add(1)
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range req.Params.InputResponses {
					if !yield(k) {
						return
					}
				}
			})
			rs.mu.Lock()
			rs.seen = append(rs.seen, req.Params.RequestState+" "+strings.Join(keys, ","))
			rs.mu.Unlock()
			if a := server.ElicitationResponse(req.Params.InputResponses, "target"); a != nil && req.Params.RequestState == "step=1" {
				env, _ := a.Content.(map[string]any)["env"].(string)
				return mcp.NewToolResultText(name + " to " + env), nil
			}
			return server.NewInputRequestBuilder("step=1").Elicit("target", mcp.ElicitationParams{Message: "Which environment?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"env": map[string]any{"type": "string"}}}}).ToolResult(), nil
		}
	}
	rs.s.AddTool(mcp.NewTool("deploy", mcp.WithString("repo")), asking("deploy"))
	rs.s.AddTool(mcp.NewTool("survey", mcp.WithReadOnlyHintAnnotation(true)), asking("survey"))
	p := authz.Policy{
		Tools: map[string][]string{"delete_repository": {"repo:admin"}, "drop_table": {"repo:admin"},
			"flaky_delete": {"repo:admin"}, "deploy": {"repo:admin"}},
		Public:  []string{"survey"},
		Confirm: authz.Confirm{Destructive: true},
	}
	opts = append([]wrap.Option{wrap.WithLogger(rs.logs.Logger()), wrap.WithAuthorization(p), wrap.WithTelemetry(
		observe.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rs.spans))))}, opts...)
	mcpgo.Attach(rs.s, wrap.New(opts...))
	return rs
}

// serve serves rs over streamable HTTP behind the stand-in verifier.
func (rs *roundServer) serve(t *testing.T, stateless bool) string {
	t.Helper()
	return serveHTTP(t, server.NewStreamableHTTPServer(rs.s, server.WithStateLess(stateless)))
}

func serveHTTP(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if c, ok := roundCallers[tok]; ok {
			r = r.WithContext(authz.NewContext(r.Context(), c))
		}
		h.ServeHTTP(w, r)
	})}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

// roundClient connects an mcp-go client as token; change, when not nil,
// alters its later rounds.
func roundClient(t *testing.T, url, token string, change adaptercases.LaterRounds, opts ...client.ClientOption) *client.Client {
	t.Helper()
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}),
		transport.WithHTTPBasicClient(&http.Client{Transport: change}))
	if err != nil {
		t.Fatal(err)
	}
	return testserver.Start(t, tr, opts...)
}

// user answers every question: the confirmation as accept says, and the
// tools' own question with an environment.
type user struct {
	accept bool
	asked  atomic.Int32
}

func (u *user) Elicit(_ context.Context, r mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	u.asked.Add(1)
	if !u.accept {
		return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionDecline}}, nil
	}
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: mcp.ElicitationResponseActionAccept,
		Content: map[string]any{"confirm": true, "env": "prod"}}}, nil
}

func callTool(cl *client.Client, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	return cl.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool, Arguments: args}})
}

// lineFacts are what the log lines of a tool say, in order: outcome, the
// authz decision and reason, and the call id.
func (rs *roundServer) lineFacts(t *testing.T, tool string) (facts []string, ids []string) {
	t.Helper()
	return adaptercases.LineFacts(t, rs.logs, tool)
}

// spanIDs are the mcpwrap.call.id of the spans of tool's calls.
func (rs *roundServer) spanIDs(tool string) []string {
	var ids []string
	for _, sp := range rs.spans.Ended() {
		if sp.Name() != "tools/call "+tool {
			continue
		}
		for _, kv := range sp.Attributes() {
			if kv.Key == "mcpwrap.call.id" {
				ids = append(ids, kv.Value.AsString())
			}
		}
	}
	return ids
}

func oneID(ids []string) bool {
	return len(ids) > 0 && !slices.ContainsFunc(ids, func(s string) bool { return s != ids[0] })
}

// TestModernClientIsAskedToConfirmThroughInputRequired: a 2026-07-28
// client is asked to confirm a destructive call through an
// input_required result carrying an elicitation (it was refused
// "unconfirmable" before, as mcp-go sends such a client no elicitation
// request); the tool runs on the accepting round only; a decline runs
// nothing; the rounds of one call share one call id in the log line and
// span. Stateful and stateless.
func TestModernClientIsAskedToConfirmThroughInputRequired(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		for _, accept := range []bool{true, false} {
			name := map[bool]string{false: "stateful", true: "stateless"}[stateless] + map[bool]string{false: "/decline", true: "/accept"}[accept]
			t.Run(name, func(t *testing.T) {
				rs := newRoundServer(t)
				u := &user{accept: accept}
				res, err := callTool(roundClient(t, rs.serve(t, stateless), "admin", nil, client.WithElicitationHandler(u)),
					"delete_repository", map[string]any{"repo": "acme/site"})
				if err != nil {
					t.Fatal(err)
				}
				runs, want := rs.runs["delete_repository"].Load(), int32(0)
				facts, ids := rs.lineFacts(t, "delete_repository")
				wantFacts := []string{"input_required asked", "permission_denied declined/declined"}
				if accept {
					want, wantFacts = 1, []string{"input_required asked", "success confirmed"}
					if res.IsError || res.Content[0].(mcp.TextContent).Text != "ran delete_repository" {
						t.Fatalf("confirmed call answered %+v", res)
					}
				} else if info, _ := mcpgo.InfoOf(res); info.Code != "permission_denied" {
					t.Fatalf("declined call answered %+v", res)
				}
				if runs != want || u.asked.Load() != 1 {
					t.Fatalf("the handler ran %d times (want %d), the user was asked %d times (want 1)", runs, want, u.asked.Load())
				}
				if !slices.Equal(facts, wantFacts) {
					t.Fatalf("log lines say %q, want %q", facts, wantFacts)
				}
				if spans := rs.spanIDs("delete_repository"); !oneID(ids) || len(spans) != 2 || !oneID(append(spans, ids[0])) {
					t.Fatalf("rounds' call ids: lines %v, spans %v; want one", ids, spans)
				}
			})
		}
	}
}

// TestConfirmationRoundIsBoundToCallerToolAndArguments: the state that
// carries a confirmation is good only for the call it was issued for: a
// round presenting a forged one, or one issued for other arguments,
// another tool or another caller, is asked again (the log line says why),
// never run; a forged state never gets the tool run, and the others only
// once the user accepted the new question, issued for what that round
// asks.
func TestConfirmationRoundIsBoundToCallerToolAndArguments(t *testing.T) {
	cases := []struct {
		name, tool, reason string
		change             adaptercases.LaterRounds
	}{
		{"forged", "delete_repository", "state_invalid", func(_ *http.Request, p map[string]any) {
			s := p["requestState"].(string)
			p["requestState"] = s[:len(s)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(s, "AA")]
		}},
		{"made up", "delete_repository", "state_invalid", func(_ *http.Request, p map[string]any) {
			p["requestState"] = "forged-1"
		}},
		{"other arguments", "delete_repository", "state_mismatch", func(_ *http.Request, p map[string]any) {
			p["arguments"] = map[string]any{"repo": "acme/everything"}
		}},
		{"other tool", "drop_table", "state_mismatch", func(r *http.Request, p map[string]any) {
			p["name"] = "drop_table"
			r.Header.Set("Mcp-Name", "drop_table")
		}},
		{"other caller", "delete_repository", "state_mismatch", func(r *http.Request, _ map[string]any) {
			r.Header.Set("Authorization", "Bearer admin2")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs := newRoundServer(t)
			u := &user{accept: true}
			cl := roundClient(t, rs.serve(t, true), "admin", c.change, client.WithElicitationHandler(u), client.WithMaxInputRoundTrips(3))
			_, err := callTool(cl, "delete_repository", map[string]any{"repo": "acme/site"})
			forged := c.reason == "state_invalid"
			if forged != (err != nil) {
				t.Fatalf("the call ended with %v", err)
			}
			runs := int32(0)
			for _, n := range rs.runs {
				runs += n.Load()
			}
			if want := map[bool]int32{true: 0, false: 1}[forged]; runs != want || u.asked.Load() < 2 {
				t.Fatalf("the tools ran %d times (want %d), the user was asked %d times (want 2 or more)", runs, want, u.asked.Load())
			}
			facts, _ := rs.lineFacts(t, c.tool)
			if c.tool != "delete_repository" {
				first, _ := rs.lineFacts(t, "delete_repository")
				facts = append(first, facts...)
			}
			if want := "input_required asked/" + c.reason; len(facts) < 2 || facts[1] != want {
				t.Fatalf("log lines say %q; want the second round %q", facts, want)
			}
		})
	}
}

// TestConfirmationStateIsUsedOnce: the round that carries an accepted
// confirmation runs the tool once; the same round sent again is asked
// again, it does not run the tool a second time.
func TestConfirmationStateIsUsedOnce(t *testing.T) {
	rs := newRoundServer(t)
	url := rs.serve(t, true)
	var saved map[string]any
	record := adaptercases.LaterRounds(func(_ *http.Request, p map[string]any) { saved = p })
	if _, err := callTool(roundClient(t, url, "admin", record, client.WithElicitationHandler(&user{accept: true})),
		"delete_repository", map[string]any{"repo": "acme/site"}); err != nil {
		t.Fatal(err)
	}
	replay := adaptercases.LaterRounds(func(_ *http.Request, p map[string]any) { maps(p, saved) })
	_, err := callTool(roundClient(t, url, "admin", replay, client.WithElicitationHandler(&user{accept: true}), client.WithMaxInputRoundTrips(2)),
		"delete_repository", map[string]any{"repo": "acme/site"})
	if err == nil {
		t.Fatal("the replayed round was answered; want it asked again")
	}
	if n := rs.runs["delete_repository"].Load(); n != 1 {
		t.Fatalf("delete_repository ran %d times, want 1", n)
	}
	if facts, _ := rs.lineFacts(t, "delete_repository"); !slices.Contains(facts, "input_required asked/state_replayed") {
		t.Fatalf("log lines say %q", facts)
	}
}

// maps copies src's entries into dst.
func maps(dst, src map[string]any) {
	for k, v := range src {
		dst[k] = v
	}
}

// TestEveryRoundIsAuthorized: authorization is decided again on every
// round: a caller whose token lacks the tool's scope on the round that
// answers the confirmation is refused, and the tool does not run.
func TestEveryRoundIsAuthorized(t *testing.T) {
	rs := newRoundServer(t)
	adaptercases.CheckEveryRoundIsAuthorized(t, func(change adaptercases.LaterRounds) error {
		_, err := callTool(roundClient(t, rs.serve(t, false), "admin", change, client.WithElicitationHandler(&user{accept: true})),
			"delete_repository", map[string]any{"repo": "acme/site"})
		return err
	}, "not found", rs.runs["delete_repository"], rs.logs)
}

// TestHandlerRoundsKeepTheirOwnState: a tool that asks for input itself
// sees its own requestState and inputResponses on its later rounds, never
// the chain's; after the user confirmed, its own rounds are not asked to
// confirm again; all the rounds of the call share one call id. For a
// 2026-07-28 client, and for a 2025-11-25 client, whose rounds mcp-go's
// bridge makes (elicitation requests).
func TestHandlerRoundsKeepTheirOwnState(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} {
		for _, tool := range []string{"deploy", "survey"} {
			name := tool + "/" + map[bool]string{true: "modern", false: version}[version == ""]
			t.Run(name, func(t *testing.T) {
				rs := newRoundServer(t)
				u := &user{accept: true}
				opts := []client.ClientOption{client.WithElicitationHandler(u)}
				if version != "" {
					opts = append(opts, client.WithProtocolVersion(version))
				}
				res, err := callTool(roundClient(t, rs.serve(t, false), "admin", nil, opts...), tool, map[string]any{"repo": "acme/site"})
				if err != nil {
					t.Fatal(err)
				}
				if res.IsError || res.Content[0].(mcp.TextContent).Text != tool+" to prod" {
					t.Fatalf("answered %+v", res)
				}
				rs.mu.Lock()
				seen := slices.Clone(rs.seen)
				rs.mu.Unlock()
				if !slices.Equal(seen, []string{" ", "step=1 target"}) {
					t.Fatalf("the handler saw (requestState, inputResponses) %q, want its own only", seen)
				}
				if want := map[string]int32{"deploy": 2, "survey": 1}[tool]; u.asked.Load() != want {
					t.Fatalf("the user was asked %d times, want %d (a confirmation holds for the call's later rounds)", u.asked.Load(), want)
				}
				_, ids := rs.lineFacts(t, tool)
				if !oneID(ids) || !oneID(append(rs.spanIDs(tool), ids[0])) {
					t.Fatalf("call ids of the rounds: lines %v, spans %v", ids, rs.spanIDs(tool))
				}
			})
		}
	}
}

// TestInputRequiredIsNoSuccessForTheLoopGuard: a destructive call that
// keeps failing after the user confirmed it is stopped by the loop guard
// like any other; the question round between two failures (an
// input_required answer) used to count as a success and start the count
// again, so the guard never stopped it.
func TestInputRequiredIsNoSuccessForTheLoopGuard(t *testing.T) {
	rs := newRoundServer(t, wrap.WithLoopGuard(wrap.LoopGuard{Failures: 2}))
	u := &user{accept: true}
	cl := roundClient(t, rs.serve(t, true), "admin", nil, client.WithElicitationHandler(u))
	var last *mcp.CallToolResult
	for range 3 {
		res, err := callTool(cl, "flaky_delete", map[string]any{"repo": "acme/site"})
		if err != nil {
			t.Fatal(err)
		}
		last = res
	}
	if n := rs.runs["flaky_delete"].Load(); n != 2 {
		t.Fatalf("flaky_delete ran %d times, want 2 (the third call refused)", n)
	}
	if info, _ := mcpgo.InfoOf(last); info.Code != "conflict" || !strings.Contains(last.Content[0].(mcp.TextContent).Text, "was not run") {
		t.Fatalf("third call answered %+v", last)
	}
	if u.asked.Load() != 2 {
		t.Fatalf("the user was asked %d times, want 2", u.asked.Load())
	}
}

// TestStateKeyLetsReplicasAgree: a round that lands on another replica
// is recognised when the replicas share WithStateKey; without it, it is
// asked again, never allowed.
func TestStateKeyLetsReplicasAgree(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 32)
	for _, shared := range []bool{true, false} {
		t.Run(map[bool]string{true: "shared key", false: "own keys"}[shared], func(t *testing.T) {
			var opts []wrap.Option
			if shared {
				opts = append(opts, wrap.WithStateKey(key))
			}
			a, b := newRoundServer(t, opts...), newRoundServer(t, opts...)
			urlA, urlB := a.serve(t, true), b.serve(t, true)
			toB := adaptercases.LaterRounds(func(r *http.Request, _ map[string]any) {
				r.URL.Host = strings.TrimSuffix(strings.TrimPrefix(urlB, "http://"), "/mcp")
			})
			u := &user{accept: true}
			res, err := callTool(roundClient(t, urlA, "admin", toB, client.WithElicitationHandler(u)), "delete_repository", map[string]any{"repo": "acme/site"})
			if err != nil || res.IsError {
				t.Fatalf("answered %+v, %v", res, err)
			}
			wantAsked := map[bool]int32{true: 1, false: 2}[shared]
			if a.runs["delete_repository"].Load() != 0 || b.runs["delete_repository"].Load() != 1 || u.asked.Load() != wantAsked {
				t.Fatalf("ran on A %d, on B %d times; asked %d times (want 0, 1, %d)", a.runs["delete_repository"].Load(),
					b.runs["delete_repository"].Load(), u.asked.Load(), wantAsked)
			}
			_, idsA := a.lineFacts(t, "delete_repository")
			_, idsB := b.lineFacts(t, "delete_repository")
			if same := idsA[0] == idsB[len(idsB)-1]; same != shared {
				t.Fatalf("call ids on A %v, on B %v", idsA, idsB)
			}
		})
	}
}

// TestInputRequiredIsNoFailureForRetriesOrTheBreaker: the question round
// of a confirmation is not a failure anywhere a failure counts: the
// calling side's retry advice (outbound) says not to repeat it, and a
// breaker (upstream.Holder) over a client whose calls end in questions it
// cannot answer stays closed; nothing runs the tool twice.
func TestInputRequiredIsNoFailureForRetriesOrTheBreaker(t *testing.T) {
	rs := newRoundServer(t, wrap.WithRetry(wrap.RetryPolicy{}))
	url := rs.serve(t, true)
	ctx, posts := outbound.WithTrace(context.Background())
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer admin"}),
		transport.WithHTTPBasicClient(&http.Client{Transport: outbound.NewTransport(nil)}))
	if err != nil {
		t.Fatal(err)
	}
	cl := testserver.Start(t, tr, client.WithElicitationHandler(&user{accept: true}))
	if _, err := cl.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "delete_repository",
		Arguments: map[string]any{"repo": "acme/site"}}}); err != nil {
		t.Fatal(err)
	}
	var outcomes []string
	for _, p := range posts() {
		if p.Verdict == nil {
			continue
		}
		outcomes = append(outcomes, string(p.Verdict.Outcome))
		if a := outbound.Advise(*p.Verdict, true, 0, outbound.RetryLimits{}); a.Retry {
			t.Errorf("advice for %s: retry (%s)", p.Verdict.Outcome, a.Reason)
		}
	}
	if !slices.Equal(outcomes, []string{"INPUT_REQUIRED", "TOOL_SUCCESS"}) {
		t.Fatalf("the calling side saw %v", outcomes)
	}

	// A tool that calls this server through a Holder, with a client that
	// cannot answer questions: every call ends in one it cannot answer.
	h := upstream.New("repos", func(ctx context.Context) (*client.Client, error) {
		tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer admin"}))
		if err != nil {
			return nil, err
		}
		c := client.NewClient(tr, client.WithMaxInputRoundTrips(1), client.WithElicitationHandler(&user{accept: true}))
		if err := c.Start(ctx); err != nil {
			return nil, err
		}
		_, err = c.Initialize(ctx, mcp.InitializeRequest{})
		return c, err
	}, upstream.WithClose(func(c *client.Client) error { return c.Close() }), upstream.WithPolicy(upstream.Policy{Threshold: 1}))
	t.Cleanup(func() { _ = h.Close() })
	for range 3 {
		err := h.Do(context.Background(), func(ctx context.Context, c *client.Client) error {
			_, err := c.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "delete_repository",
				Arguments: map[string]any{"repo": "acme/site"}}})
			return err
		})
		if err == nil {
			t.Fatal("a question nobody answers ended in success")
		}
	}
	if st := h.Stats(); st.State != "closed" || st.Broken != 0 || st.Dials != 1 {
		t.Fatalf("breaker after three unanswered questions: %+v", st)
	}
	if n := rs.runs["delete_repository"].Load(); n != 1 {
		t.Fatalf("delete_repository ran %d times, want 1", n)
	}
}

// TestInProcessClientIsAskedToConfirm: an in-process client of
// 2026-07-28 (the process owner, granted Policy.Local) is asked through
// an input_required round too, and the tool runs once it accepts.
func TestInProcessClientIsAskedToConfirm(t *testing.T) {
	logs := &logbuf.Buffer{}
	s := server.NewMCPServer("files", "1.0.0")
	var runs atomic.Int32
	s.AddTool(mcp.NewTool("wipe"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		runs.Add(1)
		return mcp.NewToolResultText("wiped"), nil
	})
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithAuthorization(authz.Policy{
		Tools: map[string][]string{"wipe": {"files:admin"}}, Local: []string{"files:admin"}, Confirm: authz.Confirm{Tools: []string{"wipe"}}})))
	u := &user{accept: true}
	cl, err := client.NewInProcessClientWithOptions(s, client.WithElicitationHandler(u))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	ctx := context.Background()
	if err := cl.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init, err := cl.Initialize(ctx, mcp.InitializeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cl.CallTool(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "wipe"}})
	if err != nil || res.IsError {
		t.Fatalf("answered %+v, %v", res, err)
	}
	rs := &roundServer{logs: logs}
	facts, ids := rs.lineFacts(t, "wipe")
	if runs.Load() != 1 || u.asked.Load() != 1 || !slices.Equal(facts, []string{"input_required asked", "success confirmed"}) || !oneID(ids) {
		t.Fatalf("protocol %s: ran %d times, asked %d times, log lines %q, call ids %v", init.ProtocolVersion, runs.Load(), u.asked.Load(), facts, ids)
	}
}
