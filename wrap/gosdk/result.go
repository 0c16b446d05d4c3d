package gosdk

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/jsonsize"
	"github.com/mcpwrap/mcpwrap/internal/result"
)

// toolResult is a go-sdk tool result seen by the chain.
type toolResult = result.Of[mcp.CallToolResult, mcp.Content, contents]

func resultOf(r *mcp.CallToolResult) call.Result {
	if r == nil {
		return nil
	}
	return toolResult{R: r}
}

// contents is go-sdk's tool result and content types for package result:
// go-sdk's contents are pointers, and it encodes binary data in base64.
type contents struct{}

func (contents) Contents(r *mcp.CallToolResult) []mcp.Content { return r.Content }

func (contents) WithContents(r *mcp.CallToolResult, c []mcp.Content) *mcp.CallToolResult {
	cp := *r
	cp.Content = c
	return &cp
}

func (contents) NeedsInput(r *mcp.CallToolResult) bool     { return len(r.InputRequests) > 0 }
func (contents) IsError(r *mcp.CallToolResult) bool        { return r.IsError }
func (contents) Structured(r *mcp.CallToolResult) any      { return r.StructuredContent }
func (contents) Other(r *mcp.CallToolResult) bool          { return r.InputRequests != nil }
func (contents) Meta(r *mcp.CallToolResult) map[string]any { return r.Meta }

func (contents) WithStructured(r *mcp.CallToolResult, v any) *mcp.CallToolResult {
	cp := *r
	cp.StructuredContent = v
	return &cp
}

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

func (contents) WithMeta(r *mcp.CallToolResult, key string, v any) *mcp.CallToolResult {
	cp := *r
	cp.Meta = withKey(r.Meta, key, v)
	return &cp
}

// withKey returns a copy of m holding v under key.
func withKey(m mcp.Meta, key string, v any) mcp.Meta {
	out := make(mcp.Meta, len(m)+1)
	for k, f := range m {
		out[k] = f
	}
	if v != nil {
		out[key] = v
	}
	return out
}

// decodeTool is call.Request.Decode for a tool's result.
func decodeTool(data []byte) (call.Result, error) {
	r := new(mcp.CallToolResult)
	if err := json.Unmarshal(data, r); err != nil {
		return nil, err
	}
	return resultOf(r), nil
}
