// Package content is go-sdk's tool result and content types as package
// internal/result reads them: the kit the adapter's toolResult is built on.
package content

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/jsonsize"
)

// Kit is go-sdk's tool result and content types for package result:
// go-sdk's contents are pointers, and it encodes binary data in base64.
type Kit struct{}

// Contents is package result's Contents for go-sdk.
func (Kit) Contents(r *mcp.CallToolResult) []mcp.Content { return r.Content }

// WithContents is package result's WithContents for go-sdk.
func (Kit) WithContents(r *mcp.CallToolResult, c []mcp.Content) *mcp.CallToolResult {
	cp := *r
	cp.Content = c
	return &cp
}

// NeedsInput is package result's NeedsInput for go-sdk.
func (Kit) NeedsInput(r *mcp.CallToolResult) bool { return len(r.InputRequests) > 0 }

// IsError is package result's IsError for go-sdk.
func (Kit) IsError(r *mcp.CallToolResult) bool { return r.IsError }

// Structured is package result's Structured for go-sdk.
func (Kit) Structured(r *mcp.CallToolResult) any { return r.StructuredContent }

// Other is package result's Other for go-sdk.
func (Kit) Other(r *mcp.CallToolResult) bool { return r.InputRequests != nil }

// Meta is package result's Meta for go-sdk.
func (Kit) Meta(r *mcp.CallToolResult) map[string]any { return r.Meta }

// WithStructured is package result's WithStructured for go-sdk.
func (Kit) WithStructured(r *mcp.CallToolResult, v any) *mcp.CallToolResult {
	cp := *r
	cp.StructuredContent = v
	return &cp
}

// Text is package result's Text for go-sdk.
func (Kit) Text(c mcp.Content) (string, bool) {
	if v, ok := c.(*mcp.TextContent); ok && v != nil {
		return v.Text, true
	}
	return "", false
}

// WithText is package result's WithText for go-sdk.
func (Kit) WithText(c mcp.Content, s string) mcp.Content {
	nv := *c.(*mcp.TextContent)
	nv.Text = s
	return &nv
}

// NewText is package result's NewText for go-sdk.
func (Kit) NewText(s string) mcp.Content { return &mcp.TextContent{Text: s} }

// Size is package result's Size for go-sdk.
func (Kit) Size(c mcp.Content) (int, bool) {
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

// WithMeta is package result's WithMeta for go-sdk.
func (Kit) WithMeta(r *mcp.CallToolResult, key string, v any) *mcp.CallToolResult {
	cp := *r
	cp.Meta = withKey(r.Meta, key, v)
	return &cp
}
