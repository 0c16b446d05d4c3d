package mcpgo

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/wrap/call"
)

// Measure is the result's size as sent and whether mcp-go can send it. A
// structured content made of maps, slices, strings, numbers and booleans —
// what a handler decodes or builds — is walked, not encoded, so a result
// is not encoded twice (here and by mcp-go); anything else is encoded once.
func (t toolResult) Measure() (int, error) {
	r := t.r
	size := 0
	for _, c := range r.Content {
		size += contentSize(c)
	}
	if r.StructuredContent != nil {
		n, err := valueSize(r.StructuredContent, 0)
		if err != nil {
			return 0, err
		}
		size += n
	}
	if r.Meta != nil || r.InputRequests != nil || !knownContent(r.Content) {
		b, err := json.Marshal(r)
		if err != nil {
			return 0, err
		}
		return max(size, len(b)), nil
	}
	return size, nil
}

func contentSize(c mcp.Content) int {
	switch v := c.(type) {
	case mcp.TextContent:
		return len(v.Text)
	case *mcp.TextContent:
		return len(v.Text)
	case mcp.ImageContent:
		return len(v.Data)
	case *mcp.ImageContent:
		return len(v.Data)
	case mcp.AudioContent:
		return len(v.Data)
	case *mcp.AudioContent:
		return len(v.Data)
	case mcp.EmbeddedResource:
		return resourceSize(v.Resource)
	case *mcp.EmbeddedResource:
		return resourceSize(v.Resource)
	}
	return 256 // a resource link or another small content
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

// knownContent reports whether every content is one Measure sizes without
// encoding (text, image, audio, embedded resource).
func knownContent(content []mcp.Content) bool {
	for _, c := range content {
		switch c.(type) {
		case mcp.TextContent, *mcp.TextContent, mcp.ImageContent, *mcp.ImageContent,
			mcp.AudioContent, *mcp.AudioContent, mcp.EmbeddedResource, *mcp.EmbeddedResource:
		default:
			return false
		}
	}
	return true
}

var errNotFinite = errors.New("json: unsupported value: NaN or ±Inf")

// maxWalkDepth bounds the walk of structured content; deeper values are
// encoded instead (encoding/json has its own limit).
const maxWalkDepth = 64

// valueSize is the encoded size of v, walked for the types a decoded or
// hand-built value holds, encoded otherwise.
func valueSize(v any, depth int) (int, error) {
	if depth > maxWalkDepth {
		return encodedSize(v)
	}
	switch x := v.(type) {
	case nil:
		return 4, nil
	case string:
		return stringSize(x), nil
	case bool:
		return 5, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, errNotFinite
		}
		return 24, nil
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return 0, errNotFinite
		}
		return 16, nil
	case int, int64, int32, uint, uint64, uint32:
		return 20, nil
	case json.Number:
		return len(x), nil
	case map[string]any:
		n := 2
		for k, e := range x {
			m, err := valueSize(e, depth+1)
			if err != nil {
				return 0, err
			}
			n += stringSize(k) + 2 + m
		}
		return n, nil
	case []any:
		n := 2
		for _, e := range x {
			m, err := valueSize(e, depth+1)
			if err != nil {
				return 0, err
			}
			n += m + 1
		}
		return n, nil
	}
	return encodedSize(v)
}

func encodedSize(v any) (int, error) {
	b, err := json.Marshal(v)
	return len(b), err
}

// Cut returns the result within budget (see call.Sizer).
func (t toolResult) Cut(budget int, note string) call.Result {
	r := t.r
	left := budget - len(note)
	if r.StructuredContent != nil {
		// A client checks structured content against the output schema:
		// a cut copy would be invalid, so the result becomes the note.
		return toolResult{&mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent(note)}}}
	}
	cp := *r
	cp.Content = make([]mcp.Content, 0, len(r.Content)+1)
	dropped := 0
	for _, c := range r.Content {
		n := contentSize(c)
		switch v := c.(type) {
		case mcp.TextContent:
			if n > left {
				v.Text = cutText(v.Text, left)
				n = len(v.Text)
			}
			c = v
		case *mcp.TextContent:
			if n > left {
				nv := *v
				nv.Text = cutText(v.Text, left)
				c, n = nv, len(nv.Text)
			}
		default:
			if n > left { // binary data is never cut: it is left out whole
				dropped++
				continue
			}
		}
		if n == 0 && left <= 0 {
			continue
		}
		left -= n
		cp.Content = append(cp.Content, c)
	}
	if dropped > 0 {
		note += " (" + strconv.Itoa(dropped) + " binary content(s) left out)"
	}
	cp.Content = append(cp.Content, mcp.NewTextContent(note))
	return toolResult{&cp}
}

// cutText cuts s to at most n bytes at a rune boundary.
func cutText(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.ToValidUTF8(s[:n], "")
}

// stringSize is the size of s encoded by encoding/json: quoted, with
// control characters, quotes, backslashes and HTML's <, > and & escaped.
func stringSize(s string) int {
	n := len(s) + 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n++
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			n += 5
		}
	}
	return n
}
