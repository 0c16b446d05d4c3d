package retrofit_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/benchmix"
	"github.com/mcpwrap/mcpwrap/internal/rawrpc"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// TestAuthzHostileClient: what a hostile client can make the retrofitted
// server do, on loopback, in bounded loops.
func TestAuthzHostileClient(t *testing.T) {
	p := authz.Policy{Tools: fsScopes, Check: func(_ context.Context, _ authz.Caller, r authz.Request) error {
		if r.Name == "tree" && !r.Listing {
			panic("a policy bug")
		}
		return nil
	}}
	w := serveFS(t, &p, true) // stateless: raw posts need no session
	bare := serveFS(t, nil, true)
	adaptercases.LogFootprint(t)

	t.Run("a 16 MiB bearer token", func(t *testing.T) {
		code, _ := rawrpc.Post(t, w.url, strings.Repeat("a", 16<<20), []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if code != http.StatusRequestHeaderFieldsTooLarge && code != 0 {
			t.Fatalf("a 16 MiB header got HTTP %d", code)
		}
		if got := testserver.ToolNames(t, testserver.ConnectAs(t, w.url, "reader")); len(got) != 3 {
			t.Fatalf("after it the reader is listed %v", got)
		}
	})

	t.Run("a token with 10 000 scopes", func(t *testing.T) {
		cl := testserver.ConnectAs(t, w.url, "many")
		if got := testserver.ToolNames(t, cl); !slices.Equal(got, []string{"list_directory", "read_file", "tree"}) {
			t.Fatalf("listed %v", got)
		}
		before := len(w.logs.String())
		if text, isErr, _ := callText(t, cl, "read_file", map[string]any{"path": "a.txt"}); isErr || text != "hello" {
			t.Fatalf("allowed call: %q", text)
		}
		n := len(w.logs.String()) - before
		t.Logf("the call's log line is %d bytes", n)
		if n > 4096 {
			t.Fatalf("a token's 10 000 scopes made the call's log line %d bytes", n)
		}
	})

	t.Run("deep and malformed arguments of a denied tool", func(t *testing.T) {
		hostile := []string{
			strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000),
			strings.Repeat("[", 1<<20),
			`{"path":"` + strings.Repeat("x", 2<<20) + `"}`,
			`{"path":`,
		}
		// 600 KB deep, 1 MiB of '[', a 2 MiB string, truncated
		adaptercases.PostHostileBodies(t, bare.url, w.url, "reader", "write_file", hostile, func(status int, answer string) bool {
			return status != http.StatusOK || strings.Contains(answer, "error")
		})
		if n := w.h.runs["write_file"].Load(); n != 0 {
			t.Fatalf("the denied tool ran %d times", n)
		}
	})

	t.Run("a Check that panics", func(t *testing.T) {
		cl := testserver.ConnectAs(t, w.url, "reader")
		// Hidden, as on go-sdk: mcp-go's own unknown-tool answer.
		text, _, rpc := callText(t, cl, "tree", map[string]any{"path": "."})
		if !rpc || !strings.Contains(text, "tool 'tree' not found") {
			t.Fatalf("a panicking Check answered %q (rpc %v)", text, rpc)
		}
		if w.h.runs["tree"].Load() != 0 {
			t.Fatal("tree ran")
		}
		if text, isErr, _ := callText(t, cl, "read_file", map[string]any{"path": "a.txt"}); isErr || text != "hello" {
			t.Fatalf("after it: %q", text)
		}
	})

}

// BenchmarkAuthzBareAndRetrofitted times an allowed call over HTTP, bare
// and retrofitted, the two taking turns (it was a test that only logged
// p50 and p99):
//
//	go test -run '^$' -bench AuthzBareAndRetrofitted ./internal/retrofit/
func BenchmarkAuthzBareAndRetrofitted(b *testing.B) {
	bare := serveFS(b, nil, false)
	wrapped := serveFS(b, &authz.Policy{Tools: fsScopes}, false)
	cls := []*client.Client{testserver.ConnectAs(b, bare.url, "reader"), testserver.ConnectAs(b, wrapped.url, "reader")}
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a.txt"}}}
	benchmix.Run(b, []string{"bare", "retrofitted"}, func(i int) error {
		res, err := cls[i].CallTool(context.Background(), req)
		if err == nil && res.IsError {
			err = fmt.Errorf("read_file: %+v", res.Content)
		}
		return err
	})
}
