package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/errcases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestHandlerErrorStructuredContentIsScrubbed: a handler that built its
// own isError result with its upstream's 400 answer in the text and a copy
// in structuredContent had the text scrubbed while structuredContent
// carried the token, the password, the DSN to the client. Now one rule
// scrubs both, deep, in arrays and under secret keys, and the result
// carries the call id of its log line, after the handler's texts.
func TestHandlerErrorStructuredContentIsScrubbed(t *testing.T) {
	var logs logbuf.Buffer
	s := server.NewMCPServer("queues", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger())))
	cases := errcases.StructuredCases()
	for _, c := range cases {
		s.AddTool(mcp.NewTool(c.Name), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent(c.Text)},
				StructuredContent: c.Structured()}, nil
		})
	}
	clients := map[string]*client.Client{"http": testserver.StartHTTP(t, s).Client, "stdio": testserver.StartStdio(t, s)}
	for transport, cl := range clients {
		for _, c := range cases {
			t.Run(transport+"/"+c.Name, func(t *testing.T) {
				var req mcp.CallToolRequest
				req.Params.Name = c.Name
				res, err := cl.CallTool(t.Context(), req)
				if err != nil {
					t.Fatal(err)
				}
				sc, _ := json.Marshal(res.StructuredContent)
				var texts []string
				for _, ct := range res.Content {
					texts = append(texts, ct.(mcp.TextContent).Text)
				}
				adaptercases.CheckStructuredScrubbed(t, c, &logs, res.IsError, texts, sc)
			})
		}
	}
	adaptercases.CheckLogScrubbed(t, cases, &logs)
}

// TestRelayedResultRawStructuredContentIsScrubbedAndCapped: a handler that
// relays an upstream MCP server's answer returns a result decoded from the
// wire, whose structuredContent mcp-go keeps (and sends) as
// RawStructuredContent: the scrub and the cap read StructuredContent only,
// so a relayed error sent its token, and a relayed 2 MiB success went
// through the 1 MiB cap whole.
func TestRelayedResultRawStructuredContentIsScrubbedAndCapped(t *testing.T) {
	relay := func(wire string) server.ToolHandlerFunc {
		return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var res mcp.CallToolResult
			if err := json.Unmarshal([]byte(wire), &res); err != nil {
				return nil, err
			}
			return &res, nil
		}
	}
	s := server.NewMCPServer("gateway", "1.0.0")
	mcpgo.Attach(s, wrap.New())
	s.AddTool(mcp.NewTool("relayed_error"), relay(`{"isError":true,"content":[{"type":"text","text":"upstream 400"}],`+
		`"structuredContent":{"api_key":"k-41f9e2d7c0","detail":"password=hunter2!x"}}`))
	s.AddTool(mcp.NewTool("relayed_rows"), relay(`{"content":[{"type":"text","text":"rows follow"}],`+
		`"structuredContent":{"rows":"`+strings.Repeat("r", 2<<20)+`"}}`))
	conn := testserver.StartHTTP(t, s)

	res := conn.CallRaw(t, "relayed_error", `{}`)
	sc, _ := json.Marshal(res.StructuredContent)
	if !res.IsError || strings.Contains(string(sc), "k-41f9e2d7c0") || strings.Contains(string(sc), "hunter2!x") ||
		!strings.Contains(string(sc), `"detail":"password=[REDACTED]"`) {
		t.Fatalf("relayed error: isError %v, structuredContent %s", res.IsError, sc)
	}
	res = conn.CallRaw(t, "relayed_rows", `{}`)
	sc, _ = json.Marshal(res.StructuredContent)
	last := res.Content[len(res.Content)-1].(mcp.TextContent).Text
	if res.IsError || res.StructuredContent != nil || !strings.Contains(last, "its structured content was left out") {
		t.Fatalf("relayed 2 MiB: isError %v, %d bytes of structuredContent, last text %q", res.IsError, len(sc), last)
	}
}

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
