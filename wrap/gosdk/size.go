package gosdk

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/jsonsize"
	"github.com/mcpwrap/mcpwrap/internal/result"
)

// Measure is the result's size as sent and whether go-sdk can send it
// (call.Sizer): contents and structured content are walked, not encoded,
// so a result is not encoded twice; anything else is encoded once.
func (t toolResult) Measure() (int, error) {
	r := t.r
	return result.Measure(contents{}, r.Content, r.StructuredContent, r.Meta != nil || r.InputRequests != nil,
		func() ([]byte, error) { return json.Marshal(r) })
}

// Cut returns the result within budget (see call.Sizer).
func (t toolResult) Cut(budget int, note string) call.Result {
	r := t.r
	if r.StructuredContent != nil {
		// A client checks structured content against the output schema:
		// a cut copy would be invalid, so the result becomes the note.
		return toolResult{&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: note}}}}
	}
	cp := *r
	cp.Content = result.Cut(contents{}, r.Content, budget, note, r.IsError)
	return toolResult{&cp}
}

// contents is go-sdk's content type for package result: go-sdk's contents
// are pointers, and it encodes binary data in base64.
type contents struct{}

func (contents) Text(c mcp.Content) (string, bool) {
	if v, ok := c.(*mcp.TextContent); ok && v != nil {
		return v.Text, true
	}
	return "", false
}

func (contents) WithText(c mcp.Content, s string) mcp.Content {
	nv := *c.(*mcp.TextContent)
	nv.Text = s
	return &nv
}

func (contents) NewText(s string) mcp.Content { return &mcp.TextContent{Text: s} }

func (contents) Size(c mcp.Content) (int, bool) {
	switch v := c.(type) {
	case *mcp.TextContent:
		return len(v.Text), true
	case *mcp.ImageContent:
		return jsonsize.Base64(len(v.Data)), true
	case *mcp.AudioContent:
		return jsonsize.Base64(len(v.Data)), true
	case *mcp.EmbeddedResource:
		if v.Resource == nil {
			return 0, true
		}
		return len(v.Resource.Text) + jsonsize.Base64(len(v.Resource.Blob)), true
	}
	return 256, false
}
