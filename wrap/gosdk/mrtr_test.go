package gosdk_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// modernClient connects a go-sdk client as tok to a stateless server, on
// which it speaks 2026-07-28 (it fails the test if not).
func modernClient(t *testing.T, url, tok string, change adaptercases.LaterRounds, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	cl := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := cl.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: bearer{tok, change}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v < "2026-07-28" {
		t.Fatalf("the client speaks %s", v)
	}
	return cs
}

// confirmer answers the confirmation, and a tool's own question.
func confirmer(accept bool, asked *atomic.Int32) *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		if !accept {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true, "env": "prod"}}, nil
	}}
}

// lineFacts are the outcome and authz decision of tool's log lines, and
// their call ids.
func (as *authzServer) lineFacts(t *testing.T, tool string) (facts, ids []string) {
	t.Helper()
	return adaptercases.LineFacts(t, as.logs, tool)
}

// TestGoSDKModernClientIsAskedToConfirmThroughInputRequired: a go-sdk
// client of 2026-07-28 is asked to confirm a destructive call through an
// input_required result (go-sdk refuses it elicitation requests, so it was
// refused "unconfirmable" before); the tool runs on the accepting round
// only, a decline runs nothing; both rounds share one call id.
func TestGoSDKModernClientIsAskedToConfirmThroughInputRequired(t *testing.T) {
	for _, accept := range []bool{true, false} {
		t.Run(map[bool]string{true: "accept", false: "decline"}[accept], func(t *testing.T) {
			p := goPolicy()
			p.Confirm = authz.Confirm{Destructive: true}
			as := newAuthzServer(t, p)
			var asked atomic.Int32
			res, err := modernClient(t, as.serve(t, true), "admin", nil, confirmer(accept, &asked)).CallTool(context.Background(),
				&mcp.CallToolParams{Name: "delete_repository", Arguments: map[string]any{"repo": "acme/site"}})
			if err != nil {
				t.Fatal(err)
			}
			facts, ids := as.lineFacts(t, "delete_repository")
			want, wantFacts := int32(0), []string{"input_required asked", "permission_denied declined/declined"}
			if accept {
				want, wantFacts = 1, []string{"input_required asked", "success confirmed"}
				if res.IsError {
					t.Fatalf("confirmed call answered %+v", res)
				}
			} else if info, _ := gosdk.InfoOf(res); info.Code != "permission_denied" {
				t.Fatalf("declined call answered %+v", res)
			}
			if n := as.runs["delete_repository"].Load(); n != want || asked.Load() != 1 {
				t.Fatalf("ran %d times (want %d), asked %d times (want 1)", n, want, asked.Load())
			}
			if !slices.Equal(facts, wantFacts) || ids[0] != ids[1] {
				t.Fatalf("log lines %q, call ids %v; want %q, one id", facts, ids, wantFacts)
			}
		})
	}
}

// TestGoSDKInputRequiredResultKeepsItsType: the chain's own question is a
// result go-sdk sends as input_required (content.InputRequired's trick), as
// a client that drives the rounds itself sees.
func TestGoSDKInputRequiredResultKeepsItsType(t *testing.T) {
	p := goPolicy()
	p.Confirm = authz.Confirm{Destructive: true}
	as := newAuthzServer(t, p)
	var asked atomic.Int32
	opts := confirmer(true, &asked)
	opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
	res, err := modernClient(t, as.serve(t, true), "admin", nil, opts).CallTool(context.Background(),
		&mcp.CallToolParams{Name: "delete_repository", Arguments: map[string]any{"repo": "acme/site"}})
	if err != nil {
		t.Fatal(err)
	}
	q, ok := res.InputRequests["mcpwrap_confirm"].(*mcp.ElicitParams)
	if !res.NeedsInput() || !ok || !strings.Contains(q.Message, "delete_repository") || res.RequestState == "" {
		t.Fatalf("answered %+v", res)
	}
}

// TestGoSDKEveryRoundIsAuthorized: the round that answers the
// confirmation is authorized again; a token without the tool's scope
// there is refused and the tool does not run.
func TestGoSDKEveryRoundIsAuthorized(t *testing.T) {
	p := goPolicy()
	p.Confirm = authz.Confirm{Destructive: true}
	as := newAuthzServer(t, p)
	var asked atomic.Int32
	adaptercases.CheckEveryRoundIsAuthorized(t, func(change adaptercases.LaterRounds) error {
		_, err := modernClient(t, as.serve(t, true), "admin", change, confirmer(true, &asked)).CallTool(context.Background(),
			&mcp.CallToolParams{Name: "delete_repository", Arguments: map[string]any{"repo": "acme/site"}})
		return err
	}, "unknown tool", as.runs["delete_repository"], as.logs)
}

// TestGoSDKHandlerRoundsKeepTheirOwnState: a tool that asks for input
// itself sees its own requestState and inputResponses on its next round,
// and its rounds share one call id.
func TestGoSDKHandlerRoundsKeepTheirOwnState(t *testing.T) {
	as := newAuthzServer(t, goPolicy())
	var mu sync.Mutex
	var seen []string
	as.s.AddTool(&mcp.Tool{Name: "ping", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var keys []string
			for k := range req.Params.InputResponses {
				keys = append(keys, k)
			}
			mu.Lock()
			seen = append(seen, req.Params.RequestState+" "+strings.Join(keys, ","))
			mu.Unlock()
			if a, ok := req.Params.InputResponses["target"].(*mcp.ElicitResult); ok && req.Params.RequestState == "step=1" {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "to " + a.Content["env"].(string)}}}, nil
			}
			return &mcp.CallToolResult{RequestState: "step=1", InputRequests: mcp.InputRequestMap{
				"target": &mcp.ElicitParams{Mode: "form", Message: "Which environment?", RequestedSchema: map[string]any{"type": "object"}}}}, nil
		})
	var asked atomic.Int32
	res, err := modernClient(t, as.serve(t, true), "reader", nil, confirmer(true, &asked)).CallTool(context.Background(),
		&mcp.CallToolParams{Name: "ping", Arguments: map[string]any{}})
	if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "to prod" {
		t.Fatalf("answered %+v, %v", res, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(seen, []string{" ", "step=1 target"}) {
		t.Fatalf("the handler saw %q", seen)
	}
	if _, ids := as.lineFacts(t, "ping"); len(ids) != 2 || ids[0] != ids[1] {
		t.Fatalf("call ids %v", ids)
	}
}

// TestGoSDKProgressRestartsTheTimeout: under WithProgressTimeout a handler
// that reports progress with req.Session.NotifyProgress outlives the idle
// time; one that reports none times out after it.
func TestGoSDKProgressRestartsTheTimeout(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateful", true: "stateless"}[stateless], func(t *testing.T) {
			s := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "1.0.0"}, nil)
			for _, report := range []bool{true, false} {
				name := map[bool]string{true: "reporting", false: "silent"}[report]
				s.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
					func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
						for i := range 12 { // 600 ms in steps of 50: past the idle time, far under the cap
							select {
							case <-ctx.Done():
								return nil, ctx.Err()
							case <-time.After(50 * time.Millisecond):
							}
							if report {
								if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: name, Progress: float64(i + 1), Total: 12}); err != nil {
									return nil, err
								}
							}
						}
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
					})
			}
			// An idle time of 400 ms, eight steps: 150 ms failed on a loaded machine.
			gosdk.Attach(s, wrap.New(wrap.WithProgressTimeout(400*time.Millisecond, 4*time.Second)))
			as := &authzServer{s: s}
			url := as.serve(t, stateless)
			cl := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
			cs, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url,
				HTTPClient: &http.Client{Transport: bearer{"reader", http.DefaultTransport}}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cs.Close() })
			for tool, want := range map[string]string{"reporting": "done", "silent": `tool "silent" timed out: it reported no progress for 400ms`} {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{},
					Meta: mcp.Meta{"progressToken": tool}})
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, want) {
					t.Errorf("%s answered %q, want %q", tool, got, want)
				}
			}
		})
	}
}
