package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/linecases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// notesServer is a go-sdk server written the way others write them (the
// SDK's own typed AddTool, raw handlers reading a map, fmt.Errorf, a
// panic) with the retrofit's one line, logging to l: the tools of
// linecases.Calls.
func notesServer(l *slog.Logger) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "0.3.1"}, nil)
	obj := map[string]any{"type": "object"}
	echo := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		_ = json.Unmarshal(req.Params.Arguments, &args)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(len(args))}}}, nil
	}
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: obj}, echo)
	s.AddTool(&mcp.Tool{Name: "login", InputSchema: obj}, echo)
	s.AddTool(&mcp.Tool{Name: "fails", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("connect postgres://app:hunter2@db.internal:5432/notes: refused")
	})
	s.AddTool(&mcp.Tool{Name: "panics", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("index out of range")
	})
	type note struct {
		Title string `json:"title"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add_note"}, func(_ context.Context, _ *mcp.CallToolRequest, n note) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "added " + n.Title}}}, nil, nil
	})
	gosdk.Attach(s, wrap.New(wrap.WithLogger(l)))
	return s
}

// TestGoSDKNewLoggerLinesAreJSONHandlers is mcp-go's
// TestNewLoggerLinesAreJSONHandlers on go-sdk: the same hostile calls, in
// memory and over streamable HTTP, NewLogger's lines byte for byte
// JSONHandler's but the time, duration, call id, session and stack. On
// go-sdk the arguments reach the line as the client's raw JSON, decoded
// once for it, not through the key order mcp-go's decoded map takes.
func TestGoSDKNewLoggerLinesAreJSONHandlers(t *testing.T) {
	calls := linecases.Calls()
	for _, transport := range []string{"memory", "http"} {
		t.Run(transport, func(t *testing.T) {
			lines := func(l *slog.Logger, buf *logbuf.Buffer) string {
				cs := connect(t, transport, notesServer(l), true)
				for _, c := range calls {
					_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args}) // failures are answers here
				}
				out, err := buf.Stable()
				if err != nil {
					t.Fatal(err)
				}
				return out
			}
			// The unknown tool may be answered before any middleware.
			adaptercases.CheckNewLoggerIsJSONHandler(t, lines, len(calls)-1)
		})
	}
}
