// Package content is mcp-go's tool result and content types as package
// internal/result reads them: the kit the adapter's toolResult is built on.
package content

import (
	"github.com/mark3labs/mcp-go/mcp"
)

// Kit is mcp-go's tool result and content types for package result.
// mcp-go's contents come as values and as pointers; both are known.
type Kit struct{}

// Contents is package result's Contents for mcp-go.
func (Kit) Contents(r *mcp.CallToolResult) []mcp.Content { return r.Content }

// WithContents is package result's WithContents for mcp-go.
func (Kit) WithContents(r *mcp.CallToolResult, c []mcp.Content) *mcp.CallToolResult {
	cp := *r
	cp.Content = c
	return &cp
}

// NeedsInput is package result's NeedsInput for mcp-go.
func (Kit) NeedsInput(r *mcp.CallToolResult) bool { return r.NeedsInput() }

// IsError is package result's IsError for mcp-go.
func (Kit) IsError(r *mcp.CallToolResult) bool { return r.IsError }

// Structured is package result's Structured for mcp-go.
func (Kit) Structured(r *mcp.CallToolResult) any { return structured(r) }

// Other is package result's Other for mcp-go.
func (Kit) Other(r *mcp.CallToolResult) bool {
	return r.Meta != nil && r.Meta.ProgressToken != nil || r.InputRequests != nil
}

// Meta is package result's Meta for mcp-go.
func (Kit) Meta(r *mcp.CallToolResult) map[string]any {
	if r.Meta == nil {
		return nil
	}
	return r.Meta.AdditionalFields
}

// structured is what mcp-go sends as structuredContent: a result decoded
// from the wire (a server relaying an upstream MCP server's answer) keeps
// its bytes in RawStructuredContent, which mcp-go sends in place of
// StructuredContent.
func structured(r *mcp.CallToolResult) any {
	if len(r.RawStructuredContent) > 0 {
		return r.RawStructuredContent
	}
	return r.StructuredContent
}

// WithStructured is package result's WithStructured for mcp-go.
func (Kit) WithStructured(r *mcp.CallToolResult, v any) *mcp.CallToolResult {
	cp := *r
	cp.StructuredContent, cp.RawStructuredContent = v, nil
	return &cp
}

// Text is package result's Text for mcp-go.
func (Kit) Text(c mcp.Content) (string, bool) {
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

// WithText is package result's WithText for mcp-go.
func (Kit) WithText(c mcp.Content, s string) mcp.Content {
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

// NewText is package result's NewText for mcp-go.
func (Kit) NewText(s string) mcp.Content { return mcp.NewTextContent(s) }

// Size is package result's Size for mcp-go.
func (Kit) Size(c mcp.Content) (int, bool) {
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

// WithMeta is package result's WithMeta for mcp-go.
func (Kit) WithMeta(r *mcp.CallToolResult, key string, v any) *mcp.CallToolResult {
	cp := *r
	m := &mcp.Meta{}
	if r.Meta != nil {
		*m = *r.Meta
	}
	m.AdditionalFields = withKey(m.AdditionalFields, key, v)
	cp.Meta = m
	return &cp
}

// withKey returns a copy of fields holding v under key.
func withKey(fields map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(fields)+1)
	for k, f := range fields {
		out[k] = f
	}
	if v != nil {
		out[key] = v
	}
	return out
}
