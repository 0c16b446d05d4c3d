package mcpgo_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/errcases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestShownErrorHidesInternalHostName: a plain error quoting an
// upstream's 500 showed the model an internal host name
// (git-03.internal), while a URL's host became [host]. The model reads
// [host] for both; the log line keeps the name for the operator.
func TestShownErrorHidesInternalHostName(t *testing.T) {
	s := server.NewMCPServer("git", "1.0.0")
	logs := &logbuf.Buffer{}
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger())))
	for i, c := range errcases.HostTexts {
		s.AddTool(mcp.NewTool("t"+string(rune('a'+i))), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New(c.Text)
		})
	}
	conn := testserver.StartHTTP(t, s)
	adaptercases.CheckHostsHidden(t, func(i int) (bool, string) {
		res := conn.CallRaw(t, "t"+string(rune('a'+i)), `{}`)
		text := ""
		if len(res.Content) > 0 {
			text = res.Content[0].(mcp.TextContent).Text
		}
		return res.IsError, text
	}, logs)
}
