package mcpgo

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/result"
)

// toolResult is an mcp-go tool result seen by the chain.
type toolResult = result.Of[mcp.CallToolResult, mcp.Content, contents]

func resultOf(r *mcp.CallToolResult) call.Result {
	if r == nil {
		return nil
	}
	return toolResult{R: r}
}

// contents is mcp-go's tool result and content types for package result.
// mcp-go's contents come as values and as pointers; both are known.
type contents struct{}

func (contents) Contents(r *mcp.CallToolResult) []mcp.Content { return r.Content }

func (contents) WithContents(r *mcp.CallToolResult, c []mcp.Content) *mcp.CallToolResult {
	cp := *r
	cp.Content = c
	return &cp
}

func (contents) NeedsInput(r *mcp.CallToolResult) bool { return r.NeedsInput() }
func (contents) IsError(r *mcp.CallToolResult) bool    { return r.IsError }
func (contents) Structured(r *mcp.CallToolResult) any  { return structured(r) }
func (contents) Other(r *mcp.CallToolResult) bool {
	return r.Meta != nil && r.Meta.ProgressToken != nil || r.InputRequests != nil
}

func (contents) Meta(r *mcp.CallToolResult) map[string]any {
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

func (contents) WithStructured(r *mcp.CallToolResult, v any) *mcp.CallToolResult {
	cp := *r
	cp.StructuredContent, cp.RawStructuredContent = v, nil
	return &cp
}

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

func (contents) WithMeta(r *mcp.CallToolResult, key string, v any) *mcp.CallToolResult {
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

// decodeTool is call.Request.Decode for a tool's result.
func decodeTool(data []byte) (call.Result, error) {
	raw := json.RawMessage(data)
	r, err := mcp.ParseCallToolResult(&raw)
	if err != nil {
		return nil, err
	}
	return resultOf(r), nil
}
