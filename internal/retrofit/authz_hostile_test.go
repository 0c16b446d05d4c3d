package retrofit_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/benchmix"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// post sends one raw JSON-RPC message to the server as a client would
// after initialize, with headers h, and returns the status and body.
func post(t *testing.T, url, session string, h map[string]string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	for k, v := range h {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	return res.StatusCode, string(b)
}

func heap() (uint64, uint64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, m.TotalAlloc
}

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
	g0 := runtime.NumGoroutine()
	h0, _ := heap()

	t.Run("a 16 MiB bearer token", func(t *testing.T) {
		code, _ := post(t, w.url, "", map[string]string{"Authorization": "Bearer " + strings.Repeat("a", 16<<20)},
			[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if code != http.StatusRequestHeaderFieldsTooLarge && code != 0 {
			t.Fatalf("a 16 MiB header got HTTP %d", code)
		}
		if got := listNames(t, fsConnect(t, w.url, "reader")); len(got) != 3 {
			t.Fatalf("after it the reader is listed %v", got)
		}
	})

	t.Run("a token with 10 000 scopes", func(t *testing.T) {
		cl := fsConnect(t, w.url, "many")
		if got := listNames(t, cl); !slices.Equal(got, []string{"list_directory", "read_file", "tree"}) {
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

	bare := serveFS(t, nil, true)
	t.Run("deep and malformed arguments of a denied tool", func(t *testing.T) {
		hostile := []string{
			strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000),
			strings.Repeat("[", 5<<20),
			`{"path":"` + strings.Repeat("x", 8<<20) + `"}`,
			`{"path":`,
		}
		for _, side := range []fsServed{bare, w} {
			_, a0 := heap()
			var codes []string
			for _, args := range hostile {
				body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write_file","arguments":` + args + `}}`
				code, got := post(t, side.url, "", map[string]string{"Authorization": "Bearer reader"}, []byte(body))
				if side.url == w.url && code == http.StatusOK && !strings.Contains(got, "error") {
					t.Fatalf("HTTP %d %.200s", code, got)
				}
				codes = append(codes, fmt.Sprintf("%d %.90s", code, got))
			}
			_, a1 := heap()
			t.Logf("%s: four hostile bodies (6 MiB deep, 5 MiB of '[', 8 MiB string, truncated) cost %d MiB of allocation; answers %q",
				map[bool]string{true: "bare", false: "retrofitted"}[side.url == bare.url], (a1-a0)>>20, codes)
		}
		if n := w.h.runs["write_file"].Load(); n != 0 {
			t.Fatalf("the denied tool ran %d times", n)
		}
	})

	t.Run("a Check that panics", func(t *testing.T) {
		cl := fsConnect(t, w.url, "reader")
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

	time.Sleep(200 * time.Millisecond)
	h1, _ := heap()
	t.Logf("goroutines %d before, %d after; heap %d KiB before, %d KiB after", g0, runtime.NumGoroutine(), h0>>10, h1>>10)
}

// BenchmarkAuthzBareAndRetrofitted times an allowed call over HTTP, bare
// and retrofitted, the two taking turns (it was a test that only logged
// p50 and p99):
//
//	go test -run '^$' -bench AuthzBareAndRetrofitted ./internal/retrofit/
func BenchmarkAuthzBareAndRetrofitted(b *testing.B) {
	bare := serveFS(b, nil, false)
	wrapped := serveFS(b, &authz.Policy{Tools: fsScopes}, false)
	cls := []*client.Client{fsConnect(b, bare.url, "reader"), fsConnect(b, wrapped.url, "reader")}
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a.txt"}}}
	benchmix.Run(b, []string{"bare", "retrofitted"}, func(i int) error {
		res, err := cls[i].CallTool(context.Background(), req)
		if err == nil && res.IsError {
			err = fmt.Errorf("read_file: %+v", res.Content)
		}
		return err
	})
}
