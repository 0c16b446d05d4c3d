package content

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
)

// Resource is a resource's contents seen by the chain: what mcp-go's
// resource middleware returns is the contents, not the result.
type Resource struct{ C []mcp.ResourceContents }

// Status is call.Success.
func (Resource) Status() call.Status { return call.Success }

// Check is nil: there is nothing to check.
func (Resource) Check() error { return nil }

// Text is empty: contents are not scrubbed.
func (Resource) Text() string { return "" }

// MapText returns r as it is.
func (r Resource) MapText(func(string) string) call.Result { return r }

// Encode returns the contents as JSON (call.Keeper).
func (r Resource) Encode() ([]byte, error) { return json.Marshal(r.C) }

// WithMeta returns a copy of the contents, each of whose _meta holds v
// under key (call.Keeper): what mcp-go's resource middleware returns is
// the contents, not the result.
func (r Resource) WithMeta(key string, v any) call.Result {
	out := make([]mcp.ResourceContents, len(r.C))
	for i, c := range r.C {
		switch x := c.(type) {
		case mcp.TextResourceContents:
			x.Meta = withKey(x.Meta, key, v)
			c = x
		case *mcp.TextResourceContents:
			cp := *x
			cp.Meta = withKey(x.Meta, key, v)
			c = &cp
		case mcp.BlobResourceContents:
			x.Meta = withKey(x.Meta, key, v)
			c = x
		case *mcp.BlobResourceContents:
			cp := *x
			cp.Meta = withKey(x.Meta, key, v)
			c = &cp
		}
		out[i] = c
	}
	return Resource{C: out}
}

// DecodeResource is call.Request.Decode for a resource's contents.
func DecodeResource(data []byte) (call.Result, error) {
	var ms []map[string]any
	if err := json.Unmarshal(data, &ms); err != nil {
		return nil, err
	}
	out := make([]mcp.ResourceContents, len(ms))
	for i, m := range ms {
		c, err := mcp.ParseResourceContents(m)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return Resource{C: out}, nil
}
