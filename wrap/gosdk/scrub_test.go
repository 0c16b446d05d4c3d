package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// TestErrorTextIsScrubbedNotMaskedOnGoSDK: github-mcp-server's 404 (a raw
// go-sdk tool returning go-github's error) used to reach the model as
// "internal error in tool …", because its text holds a URL; bare go-sdk
// sent the text. Now the model reads it with the host replaced, and the
// status keeps its code.
func TestErrorTextIsScrubbedNotMaskedOnGoSDK(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "github", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{Name: "issue_read", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("failed to get issue: GET http://10.0.0.7:8080/api/v3/repos/o/r/issues/1: 404 Not Found []")
		})
	gosdk.Attach(s, wrap.New())
	cs := connect(t, "http", s, true)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "issue_read", Arguments: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if want := "failed to get issue: GET http://[host]/api/v3/repos/o/r/issues/1: 404 Not Found []"; !res.IsError || text != want {
		t.Fatalf("model reads %q, want %q", text, want)
	}
	if info, _ := gosdk.InfoOf(res); info.Code != "not_found" || strings.Contains(info.Message, "10.0.0.7") {
		t.Fatalf("info %+v", info)
	}
}
