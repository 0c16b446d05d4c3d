package gosdk_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/errcases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
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

// TestHandlerErrorStructuredContentIsScrubbedOnGoSDK: a handler that built
// its own isError result with its upstream's 400 answer in the text and a
// copy in structuredContent had the text scrubbed (token=[REDACTED]) while
// structuredContent carried the token, the password, the DSN to the client.
// Now one rule scrubs both, deep, in arrays and under secret keys, and the
// result carries the call id of its log line, after the handler's texts.
func TestHandlerErrorStructuredContentIsScrubbedOnGoSDK(t *testing.T) {
	var logs logbuf.Buffer
	s := mcp.NewServer(&mcp.Implementation{Name: "queues", Version: "1.0.0"}, nil)
	cases := errcases.StructuredCases()
	for _, c := range cases {
		s.AddTool(&mcp.Tool{Name: c.Name, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: c.Text}},
					StructuredContent: c.Structured()}, nil
			})
	}
	gosdk.Attach(s, wrap.New(wrap.WithLogger(logs.Logger())))
	for _, transport := range []string{"http", "memory"} {
		cs := connect(t, transport, s, true)
		for _, c := range cases {
			t.Run(transport+"/"+c.Name, func(t *testing.T) {
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.Name, Arguments: json.RawMessage(`{}`)})
				if err != nil {
					t.Fatal(err)
				}
				sc, _ := json.Marshal(res.StructuredContent)
				var texts []string
				for _, ct := range res.Content {
					texts = append(texts, ct.(*mcp.TextContent).Text)
				}
				adaptercases.CheckStructuredScrubbed(t, c, &logs, res.IsError, texts, sc)
			})
		}
	}
	adaptercases.CheckLogScrubbed(t, cases, &logs)
}
