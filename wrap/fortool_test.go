package wrap_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestForToolPrecedence: a tool's own options win over the Wrapper's, and
// the options it is registered with win over ForTool's — for the timeout,
// the argument logging (WithoutArguments for the Wrapper no longer wins over
// a tool's WithArgumentValues) and the answer cap; a resource read is
// configured under "resources/read".
func TestForToolPrecedence(t *testing.T) {
	var logs logbuf.Buffer
	w := wrap.New(wrap.WithLogger(logs.Logger()),
		wrap.WithTimeout(time.Minute), wrap.WithoutArguments(),
		wrap.ForTool("own", wrap.WithTimeout(40*time.Millisecond), wrap.WithArgumentValues(), wrap.WithResultLimit(64)),
		wrap.ForTool("registered", wrap.WithTimeout(40*time.Millisecond), wrap.WithArgumentValues()),
		wrap.ForTool("resources/read", wrap.WithTimeout(40*time.Millisecond)),
		wrap.ForTool("big", wrap.WithResultLimit(64)),
	)
	s := server.NewMCPServer("t", "1.0.0")
	mcpgo.Attach(s, w)
	// The handler ignores its context until the test ends, so the timeout
	// always answers first.
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	hang := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-release
		return mcp.NewToolResultText(strings.Repeat("x", 200)), nil
	}
	quick := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(strings.Repeat("x", 200)), nil
	}
	s.AddTool(mcp.NewTool("own"), hang)
	s.AddTool(mcp.NewTool("plain"), quick)
	s.AddTools(mcpgo.Tool(w, mcp.NewTool("big"), quick, wrap.WithResultLimit(1000)))
	s.AddTools(mcpgo.Tool(w, mcp.NewTool("registered"), hang, wrap.WithTimeout(120*time.Millisecond), wrap.WithoutArguments()))
	s.AddResource(mcp.NewResource("file:///slow", "slow"), func(ctx context.Context, _ mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	conn := testserver.StartHTTP(t, s)

	for _, tc := range []struct{ tool, after string }{{"own", "40ms"}, {"registered", "120ms"}} {
		res, err := conn.Call(t.Context(), tc.tool, map[string]any{"q": "rome"})
		info, _ := mcpgo.InfoOf(res)
		if err != nil || info.Code != "timeout" || !strings.Contains(firstText(res), "after "+tc.after) {
			t.Errorf("%s: %v %q %q, want a timeout after %s", tc.tool, err, info.Code, firstText(res), tc.after)
		}
	}
	// plain has the Wrapper's cap; big's registration (1 000 bytes) wins
	// over its ForTool (64).
	for _, tool := range []string{"plain", "big"} {
		if res, err := conn.Call(t.Context(), tool, map[string]any{"q": "rome"}); err != nil || firstText(res) != strings.Repeat("x", 200) {
			t.Errorf("%s: %v %q, want the whole answer", tool, err, firstText(res))
		}
	}
	for tool, want := range map[string]bool{"own": true, "registered": false, "plain": false} {
		lines, _ := logs.Calls(tool) // not a late end's line, which may come first
		if len(lines) != 1 {
			t.Fatalf("%s: call lines %v, want 1", tool, lines)
		}
		line := lines[0]
		if got := strings.Contains(toJSON(line["arguments"]), "rome"); got != want {
			t.Errorf("%s logged the value: %v, want %v (%v)", tool, got, want, line["arguments"])
		}
	}
	start := time.Now()
	if _, err := conn.Client.ReadResource(t.Context(), mcp.ReadResourceRequest{Params: mcp.ReadResourceParams{URI: "file:///slow"}}); err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("resources/read: %v after %v, want a timeout after 40ms", err, time.Since(start))
	}
}

// TestForToolCapsOneTool: ForTool(name, WithResultLimit(n)) cuts that tool's
// answers and no other's.
func TestForToolCapsOneTool(t *testing.T) {
	s := server.NewMCPServer("t", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.ForTool("small", wrap.WithResultLimit(64))))
	big := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(strings.Repeat("x", 500)), nil
	}
	s.AddTool(mcp.NewTool("small"), big)
	s.AddTool(mcp.NewTool("other"), big)
	conn := testserver.StartHTTP(t, s)
	small, err := conn.Call(t.Context(), "small", nil)
	if err != nil || strings.Count(toJSON(small), "x") >= 500 || !strings.Contains(toJSON(small), "cut") {
		t.Errorf("small: %v %s, want a cut answer", err, toJSON(small))
	}
	if other, err := conn.Call(t.Context(), "other", nil); err != nil || firstText(other) != strings.Repeat("x", 500) {
		t.Errorf("other: %v, want the whole answer", err)
	}
}

// TestForToolDeclaresScopes: WithScopes in ForTool declares the tool's
// scopes to the policy, as at registration.
func TestForToolDeclaresScopes(t *testing.T) {
	w := wrap.New(wrap.WithAuthorization(authz.Policy{}), wrap.ForTool("admin", wrap.WithScopes("admin")))
	if got := w.RequiredScopes("tools/call", "admin"); len(got) != 1 || got[0] != "admin" {
		t.Fatalf("RequiredScopes = %v, want [admin]", got)
	}
}

// TestOptionsGivenWhereTheyMeanNothingPanic: no option is dropped without
// a word.
func TestOptionsGivenWhereTheyMeanNothingPanic(t *testing.T) {
	cases := []struct {
		name string
		opts []wrap.Option
		want string
	}{
		{"scopes for the Wrapper", []wrap.Option{wrap.WithScopes("admin")}, "WithScopes given to wrap.New"},
		{"a policy for one tool", []wrap.Option{wrap.ForTool("t", wrap.WithAuthorization(authz.Policy{}))}, `WithAuthorization given for the tool "t"`},
		{"ForTool inside ForTool", []wrap.Option{wrap.ForTool("t", wrap.ForTool("u"))}, `ForTool given inside the options of the tool "t"`},
		// A prompt's or resource's scopes are the Policy's: WithScopes there
		// was dropped, leaving the prompt open (found by review).
		{"scopes for a prompt", []wrap.Option{wrap.ForTool("prompts/get payroll", wrap.WithScopes("hr"))}, `WithScopes given in ForTool("prompts/get payroll")`},
		{"scopes for resources", []wrap.Option{wrap.ForTool("resources/read", wrap.WithScopes("hr"))}, `WithScopes given in ForTool("resources/read")`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r, _ := recover().(string); !strings.Contains(r, tc.want) {
					t.Fatalf("panic %q, want one saying %q", r, tc.want)
				}
			}()
			wrap.New(tc.opts...)
		})
	}
	defer func() {
		if r, _ := recover().(string); !strings.Contains(r, `WithAuthorization given for the tool "t"`) {
			t.Fatalf("registration: panic %q", r)
		}
	}()
	mcpgo.Tool(wrap.New(), mcp.NewTool("t"), nil, wrap.WithAuthorization(authz.Policy{}))
}
