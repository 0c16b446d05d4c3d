package mcpgo_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/linecases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// hostileServer is a server written the way others write them (their
// constructor and options, untyped handlers reading a map, fmt.Errorf, a
// panic) with the retrofit's one line, logging to l: the tools of
// linecases.Calls.
func hostileServer(l *slog.Logger) *server.MCPServer {
	s := server.NewMCPServer("notes", "0.3.1", server.WithRecovery(), server.WithToolCapabilities(true))
	echo := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(fmt.Sprint(len(req.GetArguments()))), nil
	}
	s.AddTool(mcp.NewTool("echo"), echo)
	s.AddTool(mcp.NewTool("login"), echo)
	s.AddTool(mcp.NewTool("fails"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("connect postgres://app:hunter2@db.internal:5432/notes: %s", req.GetString("why", "refused"))
	})
	s.AddTool(mcp.NewTool("panics"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("index out of range")
	})
	type noteArgs struct {
		Title string `json:"title" validate:"required,max=20"`
	}
	w := wrap.New(wrap.WithLogger(l))
	s.AddTools(mcpgo.Typed(w, mcp.NewTool("add_note"), func(_ context.Context, _ mcp.CallToolRequest, a noteArgs) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("added " + a.Title), nil
	}))
	mcpgo.Attach(s, w)
	return s
}

// TestNewLoggerLinesAreJSONHandlers: a server as its authors write it,
// retrofitted with observe.NewLogger, writes the lines slog.NewJSONHandler
// writes for the same calls from a hostile client (huge, many, odd, deep
// and changing arguments, secrets, errors, panics, unknown tools), over
// streamable HTTP, stdio and stateless HTTP with two clients at once,
// byte for byte but the time, duration, call id, session and panic stack
// (the lines sorted: two clients' interleave).
func TestNewLoggerLinesAreJSONHandlers(t *testing.T) {
	stateless := func(t *testing.T, s *server.MCPServer) []*client.Client {
		srv := httptest.NewServer(server.NewStreamableHTTPServer(s, server.WithStateLess(true)))
		t.Cleanup(srv.Close)
		return []*client.Client{testserver.Connect(t, srv.URL, nil), testserver.Connect(t, srv.URL, nil)}
	}
	transports := map[string]func(*testing.T, *server.MCPServer) []*client.Client{
		"http": func(t *testing.T, s *server.MCPServer) []*client.Client {
			return []*client.Client{testserver.StartHTTP(t, s).Client}
		},
		"stdio": func(t *testing.T, s *server.MCPServer) []*client.Client {
			return []*client.Client{testserver.StartStdio(t, s)}
		},
		"stateless http, two clients at once": stateless,
	}
	for name, start := range transports {
		t.Run(name, func(t *testing.T) {
			lines := func(l *slog.Logger, buf *logbuf.Buffer) string {
				var wg sync.WaitGroup
				for _, cl := range start(t, hostileServer(l)) {
					wg.Go(func() {
						for _, c := range linecases.Calls() {
							req := mcp.CallToolRequest{}
							req.Params.Name, req.Params.Arguments = c.Tool, c.Args
							_, _ = cl.CallTool(context.Background(), req) // failures are answers here
						}
					})
				}
				wg.Wait()
				out, err := buf.Stable()
				if err != nil {
					t.Fatal(err)
				}
				sorted := strings.Split(out, "\n") // two clients' lines interleave
				slices.Sort(sorted)
				return strings.Join(sorted, "\n")
			}
			adaptercases.CheckNewLoggerIsJSONHandler(t, lines, len(linecases.Calls()))
		})
	}
}
