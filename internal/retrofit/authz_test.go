package retrofit_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
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

// fsHandler and newFSServer have the shape of mark3labs/mcp-filesystem-server
// (830bc892): a constructor over the allowed directories that returns the
// server and an error, resource capabilities, one "file://" resource, tools
// built with mcp.NewTool and no annotations at all (so every one is, by
// MCP's defaults, destructive and not read-only), and method values of a
// handler struct as handlers. Nothing of mcpwrap.
type fsHandler struct {
	root string
	runs map[string]*atomic.Int32
}

func (h *fsHandler) count(name string) { h.runs[name].Add(1) }

func (h *fsHandler) readFile(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	h.count("read_file")
	p, err := req.RequireString("path")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	b, err := os.ReadFile(filepath.Join(h.root, filepath.Clean("/"+p)))
	if err != nil {
		return mcp.NewToolResultError(fmt.Sprintf("Error reading file: %v", err)), nil
	}
	return mcp.NewToolResultText(string(b)), nil
}

func (h *fsHandler) simple(name string) server.ToolHandlerFunc {
	return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		h.count(name)
		return mcp.NewToolResultText("ran " + name), nil
	}
}

var fsTools = []string{"read_file", "list_directory", "tree", "write_file", "delete_file"}

func newFSServer(root string) (*server.MCPServer, *fsHandler, error) {
	h := &fsHandler{root: root, runs: map[string]*atomic.Int32{}}
	for _, n := range fsTools {
		h.runs[n] = new(atomic.Int32)
	}
	s := server.NewMCPServer("secure-filesystem-server", "dev", server.WithResourceCapabilities(true, true))
	s.AddResource(mcp.NewResource("file://", "File System"), func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "x"}}, nil
	})
	s.AddTool(mcp.NewTool("read_file", mcp.WithDescription("Read a file."), mcp.WithString("path", mcp.Required())), h.readFile)
	s.AddTool(mcp.NewTool("list_directory", mcp.WithString("path", mcp.Required())), h.simple("list_directory"))
	s.AddTool(mcp.NewTool("tree", mcp.WithString("path", mcp.Required()), mcp.WithNumber("depth")), h.simple("tree"))
	s.AddTool(mcp.NewTool("write_file", mcp.WithString("path", mcp.Required()), mcp.WithString("content", mcp.Required())), h.simple("write_file"))
	s.AddTool(mcp.NewTool("delete_file", mcp.WithString("path", mcp.Required()), mcp.WithBoolean("recursive")), h.simple("delete_file"))
	return s, h, nil
}

// fsScopes is the scope map a new user writes over the real tool names;
// delete_file is left out on purpose.
var fsScopes = map[string][]string{"read_file": {"fs:read"}, "list_directory": {"fs:read"}, "tree": {"fs:read"}, "write_file": {"fs:write"}}

// fsStandIn stands in for the JWT verifier: "reader-N" and "writer-N"
// tokens are callers N with read, and read and write, scopes; "many"
// carries 10 000 scopes; any other token is no caller at all.
func fsStandIn(next http.Handler) http.Handler {
	many := make([]string, 10000)
	for i := range many {
		many[i] = fmt.Sprintf("scope:%d", i)
	}
	many[len(many)-1] = "fs:read"
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		var c *authz.Caller
		switch {
		case strings.HasPrefix(tok, "reader"):
			c = &authz.Caller{Subject: "alice" + strings.TrimPrefix(tok, "reader"), Scopes: []string{"fs:read"}}
		case strings.HasPrefix(tok, "writer"):
			c = &authz.Caller{Subject: "bob" + strings.TrimPrefix(tok, "writer"), Scopes: []string{"fs:read", "fs:write"}}
		case tok == "many":
			c = &authz.Caller{Subject: "mallory", Scopes: many}
		}
		if c != nil {
			r = r.WithContext(authz.NewContext(r.Context(), *c))
		}
		next.ServeHTTP(w, r)
	})
}

type fsServed struct {
	url  string
	h    *fsHandler
	logs *logbuf.Buffer
}

// serveFS builds the server, with the one line when p is not nil, and
// serves it over streamable HTTP on loopback behind the stand-in.
func serveFS(t testing.TB, p *authz.Policy, stateless bool) fsServed {
	t.Helper()
	s, h, err := newFSServer(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.root, "a.txt"), []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	logs := &logbuf.Buffer{}
	if p != nil {
		mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithAuthorization(*p)))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: fsStandIn(server.NewStreamableHTTPServer(s, server.WithStateLess(stateless))), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return fsServed{url: "http://" + ln.Addr().String() + "/mcp", h: h, logs: logs}
}

// callText is what a call got: the result's text, or the JSON-RPC error.
func callText(t testing.TB, cl *client.Client, tool string, args map[string]any) (text string, isError, rpc bool) {
	t.Helper()
	res, err := cl.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: tool, Arguments: args}})
	if err != nil {
		return err.Error(), true, true
	}
	return firstText(res), res.IsError, false
}

// TestAuthzRetrofitOnAFilesystemShapedServer serves the filesystem-shaped
// server bare and with the one line side by side, stateful and stateless,
// to an anonymous caller, a reader and a writer, and compares what each
// client gets.
func TestAuthzRetrofitOnAFilesystemShapedServer(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		t.Run(map[bool]string{false: "stateful", true: "stateless"}[stateless], func(t *testing.T) {
			bare := serveFS(t, nil, stateless)
			p := authz.Policy{Tools: fsScopes, Resources: map[string][]string{"file://*": {"fs:read"}}}
			wrapped := serveFS(t, &p, stateless)
			for _, c := range []struct {
				token string
				want  []string
			}{
				{"", nil},
				{"reader", []string{"list_directory", "read_file", "tree"}},
				{"writer", []string{"list_directory", "read_file", "tree", "write_file"}},
			} {
				if got := testserver.ToolNames(t, testserver.ConnectAs(t, bare.url, c.token)); len(got) != len(fsTools) {
					t.Fatalf("bare lists %v", got)
				}
				cl := testserver.ConnectAs(t, wrapped.url, c.token)
				if got := testserver.ToolNames(t, cl); !slices.Equal(got, c.want) {
					t.Errorf("caller %q is listed %v, want %v", c.token, got, c.want)
				}
				unknown, _, _ := callText(t, cl, "no_such_tool", map[string]any{"path": "a.txt"})
				for _, hidden := range []string{"delete_file", "write_file"} {
					if slices.Contains(c.want, hidden) {
						continue
					}
					got, _, rpc := callText(t, cl, hidden, map[string]any{"path": "a.txt", "content": "x"})
					if want := strings.ReplaceAll(unknown, "no_such_tool", hidden); !rpc || got != want {
						t.Errorf("caller %q calling hidden %s got %q, an unknown tool %q", c.token, hidden, got, unknown)
					}
				}
			}
			cl := testserver.ConnectAs(t, wrapped.url, "reader")
			if text, isErr, _ := callText(t, cl, "read_file", map[string]any{"path": "a.txt"}); isErr || text != "hello" {
				t.Fatalf("an allowed call got %q", text)
			}
			if n := wrapped.h.runs["write_file"].Load() + wrapped.h.runs["delete_file"].Load(); n != 0 {
				t.Fatalf("hidden tools ran %d times", n)
			}
			out := wrapped.logs.String()
			if !strings.Contains(out, "no policy declares tools/call delete_file") {
				t.Fatalf("no start-up warning names delete_file:\n%s", out)
			}
			lines, _ := wrapped.logs.Find("tool", "write_file")
			if len(lines) == 0 {
				t.Fatalf("no line for the hidden call:\n%s", out)
			}
			a, _ := lines[len(lines)-1]["authz"].(map[string]any)
			if a["decision"] != "hidden" || a["reason"] != "scope" || a["subject"] != "alice" || fmt.Sprint(a["missing"]) != "[fs:write]" {
				t.Fatalf("authz of the hidden call: %v", a)
			}
		})
	}
}

// TestAuthzStepUpAndReadOnlyOnAnUnannotatedServer: with StepUp the reader
// sees write_file and is told which scope it lacks; read-only mode on a
// server that annotates nothing (as the filesystem server) hides every
// tool, whatever the caller's scopes.
func TestAuthzStepUpAndReadOnlyOnAnUnannotatedServer(t *testing.T) {
	up := serveFS(t, &authz.Policy{Tools: fsScopes, StepUp: true}, false)
	cl := testserver.ConnectAs(t, up.url, "reader")
	if got := testserver.ToolNames(t, cl); !slices.Contains(got, "write_file") || slices.Contains(got, "delete_file") {
		t.Fatalf("step-up lists %v", got)
	}
	text, isErr, rpc := callText(t, cl, "write_file", map[string]any{"path": "b", "content": "x"})
	if rpc || !isErr || text != "calling write_file needs the scope fs:write, which the access token does not grant" {
		t.Fatalf("step-up denial: %q (rpc %v)", text, rpc)
	}
	ro := serveFS(t, &authz.Policy{Tools: fsScopes, ReadOnly: true}, false)
	if got := testserver.ToolNames(t, testserver.ConnectAs(t, ro.url, "writer")); len(got) != 0 {
		t.Fatalf("read-only mode lists %v on a server that marks no tool read-only", got)
	}
}

// TestAuthzUnderConcurrentCallers: 1 000 lists and calls at once from 50
// callers of two kinds; each list is the caller's own (run with -race).
func TestAuthzUnderConcurrentCallers(t *testing.T) {
	w := serveFS(t, &authz.Policy{Tools: fsScopes}, false)
	const callers, rounds = 50, 10
	clients := make([]*client.Client, callers)
	for i := range clients {
		clients[i] = testserver.ConnectAs(t, w.url, fmt.Sprintf("%s-%d", map[bool]string{false: "reader", true: "writer"}[i%2 == 1], i))
	}
	g0 := runtime.NumGoroutine()
	var wg sync.WaitGroup
	// wrong counts answers that are another caller's (a list or a call
	// the policy gives the other kind of caller); busy the writers' calls
	// the bulkhead refused, and failed the calls that got no answer (a
	// loaded machine under -race): neither is about who may call what.
	var wrong, busy, failed atomic.Int32
	for i, cl := range clients {
		writer := i%2 == 1
		for range rounds {
			wg.Add(2)
			go func() {
				defer wg.Done()
				res, err := cl.ListTools(context.Background(), mcp.ListToolsRequest{})
				if err != nil {
					failed.Add(1)
					return
				}
				if len(res.Tools) != 3+i%2 {
					wrong.Add(1)
				}
			}()
			go func() {
				defer wg.Done()
				res, err := cl.CallTool(context.Background(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "write_file", Arguments: map[string]any{"path": "b", "content": "x"}}})
				switch {
				case err != nil && strings.Contains(err.Error(), "write_file"): // hidden: answered as unknown
					if writer {
						wrong.Add(1)
					}
				case err != nil:
					failed.Add(1)
				case !writer:
					wrong.Add(1) // a reader's call ran
				case res.IsError && strings.Contains(firstText(res), "is busy"):
					busy.Add(1)
				case res.IsError:
					wrong.Add(1)
				}
			}()
		}
	}
	wg.Wait()
	if wrong.Load() != 0 {
		t.Fatalf("%d answers were another caller's (%d refused by the bulkhead, %d unanswered)", wrong.Load(), busy.Load(), failed.Load())
	}
	if failed.Load() > callers*rounds/10 {
		t.Fatalf("%d of %d calls got no answer", failed.Load(), 2*callers*rounds)
	}
	t.Logf("%d writes refused by the bulkhead, %d calls unanswered", busy.Load(), failed.Load())
	if n, want := int64(w.h.runs["write_file"].Load()), int64(callers/2*rounds)-int64(busy.Load()); n > int64(callers/2*rounds) || n < want-int64(failed.Load()) {
		t.Fatalf("write_file ran %d times, want %d (the writers' calls the bulkhead let in)", n, want)
	}
	t.Logf("goroutines before %d, after %d", g0, runtime.NumGoroutine())
}
