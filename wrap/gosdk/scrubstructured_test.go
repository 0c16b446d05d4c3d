package gosdk_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
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
				adaptercases.CheckStructuredScrubbed(t, c, &logs, res.IsError, texts, sc)
			})
		}
	}
	adaptercases.CheckLogScrubbed(t, cases, &logs)
}
