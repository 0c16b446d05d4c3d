package mcpgo

import (
	"encoding/json"
	"strconv"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/jsonsize"
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
		n, err := jsonsize.Value(r.StructuredContent)
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

// Cut returns the result within budget (see call.Sizer).
func (t toolResult) Cut(budget int, note string) call.Result {
	r := t.r
	left := budget - len(note)
	if r.StructuredContent != nil {
		// A client checks structured content against the output schema:
		// a cut copy would be invalid, so the result becomes the note.
		return toolResult{&mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent(note)}}}
	}
	cut := jsonsize.CutText
	if r.IsError {
		cut = jsonsize.CutMiddle // an error's cause is usually at its end
	}
	cp := *r
	cp.Content = make([]mcp.Content, 0, len(r.Content)+1)
	dropped := 0
	for _, c := range r.Content {
		n := contentSize(c)
		switch v := c.(type) {
		case mcp.TextContent:
			if n > left {
				v.Text = cut(v.Text, left)
				n = len(v.Text)
			}
			c = v
		case *mcp.TextContent:
			if n > left {
				nv := *v
				nv.Text = cut(v.Text, left)
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
