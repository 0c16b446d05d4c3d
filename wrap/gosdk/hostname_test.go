package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/errcases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// TestShownErrorHidesInternalHostNameOnGoSDK: a plain error quoting an
// upstream's 500 showed the model an internal host name
// (git-03.internal), while a URL's host became [host]. The model reads
// [host] for both; the log line keeps the name for the operator.
func TestShownErrorHidesInternalHostNameOnGoSDK(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "git", Version: "1.0.0"}, nil)
	for i, c := range errcases.HostTexts {
		s.AddTool(&mcp.Tool{Name: "t" + string(rune('a'+i)), InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, errors.New(c.Text)
			})
	}
	logs := &logbuf.Buffer{}
	gosdk.Attach(s, wrap.New(wrap.WithLogger(logs.Logger())))
	cs := connect(t, "http", s, true)
	adaptercases.CheckHostsHidden(t, func(i int) (bool, string) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t" + string(rune('a'+i)), Arguments: json.RawMessage(`{}`)})
		if err != nil {
			t.Fatalf("%q: %v", errcases.HostTexts[i].Text, err)
		}
		return res.IsError, res.Content[0].(*mcp.TextContent).Text
	}, logs)
}
