package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/errmap"
)

var update = flag.Bool("update", false, "rewrite testdata/matrix.golden")

// probe is one request of the failure matrix.
type probe struct {
	name string
	// do sends the request; what the client sees, in canonical form.
	do func(ctx context.Context, cs *mcp.ClientSession) string
	// bare says why the request is not sent to a bare go-sdk server: it
	// does not survive it (a panic, a nil result kills the process), never
	// answers it (a hang), or lacks the tool (AddTool of this package).
	bare string
}

func tool(name, args string) func(context.Context, *mcp.ClientSession) string {
	return func(ctx context.Context, cs *mcp.ClientSession) string {
		p := &mcp.CallToolParams{Name: name}
		if args != "" {
			p.Arguments = json.RawMessage(args)
		}
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			return rpcText(err)
		}
		return toolText(res)
	}
}

func resource(uri string) func(context.Context, *mcp.ClientSession) string {
	return func(ctx context.Context, cs *mcp.ClientSession) string {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			return rpcText(err)
		}
		b, _ := json.Marshal(res.Contents)
		return "contents " + string(b)
	}
}

func prompt(name string, args map[string]string) func(context.Context, *mcp.ClientSession) string {
	return func(ctx context.Context, cs *mcp.ClientSession) string {
		res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		if err != nil {
			return rpcText(err)
		}
		b, _ := json.Marshal(res.Messages)
		return "messages " + string(b)
	}
}

func toolText(res *mcp.CallToolResult) string {
	var texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	s := fmt.Sprintf("result isError=%v text=%q", res.IsError, strings.Join(texts, "\n"))
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		s += " structured=" + string(b)
	}
	return s
}

func rpcText(err error) string {
	var w *jsonrpc.Error
	if errors.As(err, &w) {
		s := fmt.Sprintf("rpc error code=%d message=%q", w.Code, w.Message)
		if len(w.Data) > 0 {
			s += " data=" + string(w.Data)
		}
		return s
	}
	return "client error " + err.Error()
}

// callIDs are the random call ids in answers, replaced for comparison.
var callIDs = regexp.MustCompile(`\b[0-9a-f]{16}\b`)

func probes() []probe {
	ps := []probe{
		{name: "tool ok", do: tool("echo", `{}`)},
	}
	for _, c := range errmap.Codes() {
		ps = append(ps, probe{name: "tool errs." + c.String(), do: tool("code_"+c.String(), `{}`)})
	}
	ps = append(ps,
		probe{name: "tool plain error with a DSN", do: tool("dsn", `{}`)},
		probe{name: "tool panic", do: tool("panic", `{}`), bare: "the panic kills the process"},
		probe{name: "tool after the panic", do: tool("echo", `{}`)},
		probe{name: "tool nil result", do: tool("nil", `{}`), bare: "go-sdk dereferences the nil result: the process dies"},
		probe{name: "tool hangs ignoring ctx", do: tool("hang", `{}`), bare: "never answers"},
		probe{name: "tool jsonrpc.Error", do: tool("rpc", `{}`)},
		probe{name: "tool own isError result with secrets", do: tool("own_error_result", `{}`)},
		probe{name: "tool typed-nil error that panics", do: tool("broken_error", `{}`), bare: "the panic in Error kills the process"},
		probe{name: "tool unknown", do: tool("nope", `{}`)},
		probe{name: "typed ok", do: tool("typed", `{"city":"Rome","days":3}`)},
		probe{name: "typed bad arguments", do: tool("typed", `{"cty":"Rome","days":"three"}`)},
		probe{name: "typed missing arguments", do: tool("typed", `{}`)},
		probe{name: "typed arguments not an object", do: tool("typed", `[1,2]`)},
		probe{name: "typed error with a password", do: tool("typed_secret", `{"user":"bob","password":"hunter2"}`)},
		probe{name: "typed own message with SetError", do: tool("typed_own_message", `{"user":"bob","password":"x"}`)},
		probe{name: "typed panic", do: tool("typed_panic", `{"city":"Rome","days":3}`), bare: "the panic kills the process"},
		probe{name: "bound ok", do: tool("bound", `{"city":"Rome","days":3}`), bare: "a tool of gosdk.AddTool"},
		probe{name: "bound bad arguments", do: tool("bound", `{"cty":"Rome","days":"three"}`), bare: "a tool of gosdk.AddTool"},
		probe{name: "bound out of range", do: tool("bound", `{"city":"Rome","days":99}`), bare: "a tool of gosdk.AddTool"},
		probe{name: "bound error with a password", do: tool("bound_login", `{"user":"bob","password":"hunter2"}`), bare: "a tool of gosdk.AddTool"},
		probe{name: "resource ok", do: resource("res://ok")},
		probe{name: "resource plain error with a DSN", do: resource("res://dsn")},
		probe{name: "resource errs.NotFound", do: resource("res://gone")},
		probe{name: "resource unknown URI", do: resource("res://nope")},
		probe{name: "resource nil result", do: resource("res://nil"), bare: nilResourceBare()},
		probe{name: "resource panic", do: resource("res://panic"), bare: "the panic kills the process"},
		probe{name: "template ok", do: resource("res://items/7")},
		probe{name: "template errs.InvalidArgument", do: resource("res://items/bad")},
		probe{name: "prompt ok", do: prompt("greet", map[string]string{"name": "Ada"})},
		probe{name: "prompt plain error with a DSN", do: prompt("prompt_dsn", nil)},
		probe{name: "prompt unknown", do: prompt("nope", nil)},
		probe{name: "prompt nil result", do: prompt("prompt_nil", nil), bare: "go-sdk dereferences the nil result: the process dies"},
		probe{name: "prompt panic", do: prompt("prompt_panic", nil), bare: "the panic kills the process"},
		probe{name: "prompt after the panics", do: prompt("greet", map[string]string{"name": "Bob"})},
	)
	return ps
}

// nilResourceBare: go-sdk v1.7.0 dereferences a resource handler's nil
// result (the process dies); v1.8.0 answers it.
func nilResourceBare() string {
	if goSDK18() {
		return ""
	}
	return "go-sdk v1.7.0 dereferences the nil result: the process dies"
}

// goldenSDK18 says the golden file's bare answers are go-sdk v1.8.0's; on
// another version only the wrapped answers are compared (they must not
// depend on the version).
const goldenSDK18 = true

// runMatrix sends every probe and returns the answers, one block each.
func runMatrix(t *testing.T, cs *mcp.ClientSession, wrapped bool) map[string]string {
	out := map[string]string{}
	for _, p := range probes() {
		if p.bare != "" && !wrapped {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		start := time.Now()
		got := p.do(ctx, cs)
		cancel()
		if wrapped && time.Since(start) > 2*time.Second {
			t.Errorf("%s: answered after %v", p.name, time.Since(start))
		}
		out[p.name] = callIDs.ReplaceAllString(got, "<id>")
	}
	return out
}

// TestMatrix sends the whole failure matrix to a bare go-sdk server and to
// the same server with Attach, over in-memory, streamable HTTP and stdio
// transports, and compares every answer with testdata/matrix.golden.
func TestMatrix(t *testing.T) {
	answers := map[string]map[string]string{}
	for _, tr := range transports {
		for _, wrapped := range []bool{false, true} {
			name := tr + "/bare"
			if wrapped {
				name = tr + "/wrapped"
			}
			t.Run(name, func(t *testing.T) {
				var s *mcp.Server
				if tr != "stdio" {
					if wrapped {
						w, _ := newWrapper(t)
						s = newServer(w)
					} else {
						s = newServer(nil)
					}
				}
				cs := connect(t, tr, s, wrapped)
				got := runMatrix(t, cs, wrapped)
				answers[name] = got
				if wrapped {
					for k, v := range got {
						for _, secret := range []string{"s3cret", "hunter2", "kaboom"} {
							if strings.Contains(v, secret) {
								t.Errorf("%s: %q reached the client: %s", k, secret, v)
							}
						}
					}
				}
			})
		}
	}
	// The answers must not depend on the transport.
	for _, mode := range []string{"bare", "wrapped"} {
		for _, tr := range transports[1:] {
			a, b := answers["memory/"+mode], answers[tr+"/"+mode]
			for k, v := range a {
				if tr == "http" && mode == "wrapped" && k == "resource errs.NotFound" {
					// go-sdk's streamable HTTP client negotiates a protocol
					// before 2026-07-28, where a missing resource is -32002.
					v = strings.Replace(v, "code=-32602", "code=-32002", 1)
				}
				if b[k] != v {
					t.Errorf("%s %s: %s answers\n  %s\nmemory answers\n  %s", mode, k, tr, b[k], v)
				}
			}
		}
	}
	var sb strings.Builder
	for _, p := range probes() {
		fmt.Fprintf(&sb, "== %s\n", p.name)
		bare, ok := answers["memory/bare"][p.name]
		if !ok {
			bare = "(not sent: " + p.bare + ")"
		}
		fmt.Fprintf(&sb, "bare:    %s\nwrapped: %s\n", bare, answers["memory/wrapped"][p.name])
	}
	golden := "testdata/matrix.golden"
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	got := sb.String()
	if goSDK18() != goldenSDK18 {
		got, want = wrappedLines(got), []byte(wrappedLines(string(want)))
	}
	if got != string(want) {
		t.Errorf("answers differ from %s (go test -run TestMatrix -update to see):\n%s", golden, diffLines(string(want), got))
	}
}

// wrappedLines keeps the probe names and wrapped answers of a matrix.
func wrappedLines(m string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(m, "\n") {
		if !strings.HasPrefix(l, "bare:") {
			b.WriteString(l)
		}
	}
	return b.String()
}

func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a != c {
			fmt.Fprintf(&b, "-%s\n+%s\n", a, c)
		}
	}
	return b.String()
}
