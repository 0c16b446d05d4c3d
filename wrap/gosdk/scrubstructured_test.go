package gosdk_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/errcases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

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
				if l := c.Leaked(append(texts, string(sc))...); l != "" {
					t.Fatalf("%q reached the client: %q %s", l, texts, sc)
				}
				for _, k := range c.Keeps {
					if !strings.Contains(string(sc), k) {
						t.Fatalf("structuredContent %s lost %q", sc, k)
					}
				}
				lines, _ := logs.Find("tool", c.Name)
				id, _ := lines[len(lines)-1]["call_id"].(string)
				if !res.IsError || len(texts) != 2 || id == "" || texts[1] != "(call id "+id+")" {
					t.Fatalf("isError %v, texts %q, want the handler's text then the call id %q", res.IsError, texts, id)
				}
			})
		}
	}
	for _, c := range cases {
		if l := c.Leaked(logs.String()); l != "" {
			t.Fatalf("%q in the log", l)
		}
	}
}
