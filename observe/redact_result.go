package observe

import (
	"encoding/json"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"
)

// Result returns res with the values of args' secret parameters (secret
// names, WithSecretNames, fields tagged mcpwrap:"secret") and
// secret-shaped values (PEM blocks, bearer tokens, JWTs, API keys, URL
// passwords, "password=…" pairs) replaced by Redacted in its text content
// and its structuredContent: the same redaction as the log line, so that
// a handler quoting a secret argument in its answer does not hand it to
// the model. args is the call's arguments (req.GetArguments(), or the
// typed argument struct). Result never modifies res: it returns res itself
// when nothing was found, and a scrubbed copy otherwise (structuredContent
// of a Go type is then replaced by its scrubbed JSON form). Keys are not
// judged by name: a tool may return a token it was asked to create. The
// text is scrubbed whole, so the cost is linear in the result's size.
func (r *Redactor) Result(res *mcp.CallToolResult, args any) *mcp.CallToolResult {
	if res == nil {
		return nil
	}
	r = r.orDefault()
	var known []string
	if args != nil {
		r.secretsIn(args, &known)
	}
	var out *mcp.CallToolResult
	clone := func() {
		if out == nil {
			c := *res
			c.Content = slices.Clone(res.Content)
			out = &c
		}
	}
	for i, content := range res.Content {
		switch t := content.(type) {
		case mcp.TextContent:
			if s := r.scrub(t.Text, known); s != t.Text {
				clone()
				t.Text = s
				out.Content[i] = t
			}
		case *mcp.TextContent:
			if s := r.scrub(t.Text, known); t != nil && s != t.Text {
				clone()
				c := *t
				c.Text = s
				out.Content[i] = &c
			}
		}
	}
	if res.StructuredContent != nil {
		if v, changed := r.scrubJSON(res.StructuredContent, known, 0); changed {
			clone()
			out.StructuredContent = v
		}
	}
	if out == nil {
		return res
	}
	return out
}

// scrubJSON scrubs the strings of a JSON-shaped value, copying only what
// changes. A value of another Go type is scrubbed in its JSON form.
func (r *Redactor) scrubJSON(v any, known []string, depth int) (any, bool) {
	if depth > maxDepth {
		return v, false
	}
	switch x := v.(type) {
	case nil, bool, float64, json.Number, int, int64:
		return v, false
	case string:
		s := r.scrub(x, known)
		return s, s != x
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			if e2, ok := r.scrubJSON(e, known, depth+1); ok {
				if out == nil {
					out = make(map[string]any, len(x))
					for k2, v2 := range x {
						out[k2] = v2
					}
				}
				out[k] = e2
			}
		}
		return orig(out, x)
	case []any:
		var out []any
		for i, e := range x {
			if e2, ok := r.scrubJSON(e, known, depth+1); ok {
				if out == nil {
					out = slices.Clone(x)
				}
				out[i] = e2
			}
		}
		if out == nil {
			return x, false
		}
		return out, true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v, false
	}
	var decoded any
	if json.Unmarshal(b, &decoded) != nil {
		return v, false
	}
	if d, changed := r.scrubJSON(decoded, known, depth+1); changed {
		return d, true
	}
	return v, false
}

func orig(out, in map[string]any) (any, bool) {
	if out == nil {
		return in, false
	}
	return out, true
}
