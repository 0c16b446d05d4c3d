package content

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
)

// Method is a resource's or prompt's result seen by the chain.
type Method struct{ R mcp.Result }

// Status is call.Success.
func (Method) Status() call.Status { return call.Success }

// Check is nil: there is nothing to check.
func (Method) Check() error { return nil }

// Text is empty: contents are not scrubbed.
func (Method) Text() string { return "" }

// MapText returns m as it is.
func (m Method) MapText(func(string) string) call.Result { return m }

// Encode returns a resource's result as JSON (call.Keeper).
func (m Method) Encode() ([]byte, error) { return json.Marshal(m.R) }

// WithMeta returns a copy of a resource's result whose _meta holds v under
// key (call.Keeper); a prompt's result is returned as it is.
func (m Method) WithMeta(key string, v any) call.Result {
	r, ok := m.R.(*mcp.ReadResourceResult)
	if !ok {
		return m
	}
	cp := *r
	cp.Meta = withKey(r.Meta, key, v)
	return Method{&cp}
}

// DecodeResource is call.Request.Decode for a resource's result.
func DecodeResource(data []byte) (call.Result, error) {
	r := new(mcp.ReadResourceResult)
	if err := json.Unmarshal(data, r); err != nil {
		return nil, err
	}
	return Method{r}, nil
}

// DecodeTool is call.Request.Decode for a tool's result.
func DecodeTool(data []byte) (call.Result, error) {
	r := new(mcp.CallToolResult)
	if err := json.Unmarshal(data, r); err != nil {
		return nil, err
	}
	return Tool{R: r}, nil
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
