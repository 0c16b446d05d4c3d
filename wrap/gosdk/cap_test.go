package gosdk_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// TestResultCapOnGoSDK: the answer-size cap of the chain on a go-sdk
// server, as on mcp-go (it was mcp-go's only): text cut at a rune boundary
// with the note, an image left out whole, structured content made an error.
func TestResultCapOnGoSDK(t *testing.T) {
	const limit = 16 << 10
	big := strings.Repeat("é", limit)
	cases := []struct {
		name    string
		res     *mcp.CallToolResult
		isError bool
		note    string
	}{
		{"text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}}}, false, "cut from 32 KB to 16 KB"},
		{"image", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "chart:"}, &mcp.ImageContent{Data: make([]byte, 2*limit), MIMEType: "image/png"}}}, false, "1 binary content(s) left out"},
		{"structured", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "rows"}}, StructuredContent: map[string]any{"rows": []any{big}}}, true, "ask for a narrower range"},
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "big", Version: "1.0.0"}, nil)
	for _, c := range cases {
		s.AddTool(&mcp.Tool{Name: c.name, InputSchema: map[string]any{"type": "object"}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return c.res, nil })
	}
	gosdk.Attach(s, wrap.New(wrap.WithResultLimit(limit)))
	cs := connect(t, "memory", s, true)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.name, Arguments: json.RawMessage(`{}`)})
			if err != nil {
				t.Fatal(err)
			}
			size := 0
			var text strings.Builder
			for _, ct := range res.Content {
				switch v := ct.(type) {
				case *mcp.TextContent:
					size += len(v.Text)
					text.WriteString(v.Text)
					if !utf8.ValidString(v.Text) {
						t.Fatal("the cut broke a rune")
					}
				case *mcp.ImageContent:
					t.Fatalf("an image of %d bytes got through", len(v.Data))
				}
			}
			if size > limit || res.IsError != c.isError || !strings.Contains(text.String(), c.note) {
				t.Fatalf("%d bytes (limit %d), isError %v: %.200q…", size, limit, res.IsError, text.String())
			}
		})
	}
}
