package mcpgo

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/result"
)

// Measure is the result's size as sent and whether mcp-go can send it. A
// structured content made of maps, slices, strings, numbers and booleans —
// what a handler decodes or builds — is walked, not encoded, so a result
// is not encoded twice (here and by mcp-go); anything else is encoded once.
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
		return toolResult{&mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent(note)}}}
	}
	cp := *r
	cp.Content = result.Cut(contents{}, r.Content, budget, note, r.IsError)
	return toolResult{&cp}
}

// contents is mcp-go's content type for package result. mcp-go's contents
// come as values and as pointers; both are known.
type contents struct{}

func (contents) Text(c mcp.Content) (string, bool) {
	switch v := c.(type) {
	case mcp.TextContent:
		return v.Text, true
	case *mcp.TextContent:
		if v != nil {
			return v.Text, true
		}
	}
	return "", false
}

func (contents) WithText(c mcp.Content, s string) mcp.Content {
	switch v := c.(type) {
	case mcp.TextContent:
		v.Text = s
		return v
	case *mcp.TextContent:
		nv := *v
		nv.Text = s
		return &nv
	}
	return c
}

func (contents) NewText(s string) mcp.Content { return mcp.NewTextContent(s) }

func (contents) Size(c mcp.Content) (int, bool) {
	switch v := c.(type) {
	case mcp.TextContent:
		return len(v.Text), true
	case *mcp.TextContent:
		return len(v.Text), true
	case mcp.ImageContent:
		return len(v.Data), true
	case *mcp.ImageContent:
		return len(v.Data), true
	case mcp.AudioContent:
		return len(v.Data), true
	case *mcp.AudioContent:
		return len(v.Data), true
	case mcp.EmbeddedResource:
		return resourceSize(v.Resource), true
	case *mcp.EmbeddedResource:
		return resourceSize(v.Resource), true
	}
	return 256, false // a resource link or another small content
}

func resourceSize(r mcp.ResourceContents) int {
	switch v := r.(type) {
	case mcp.TextResourceContents:
		return len(v.Text)
	case *mcp.TextResourceContents:
		return len(v.Text)
	case mcp.BlobResourceContents:
		return len(v.Blob)
	case *mcp.BlobResourceContents:
		return len(v.Blob)
	}
	return 256
}
