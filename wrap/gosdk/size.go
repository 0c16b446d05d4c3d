package gosdk

import (
	"encoding/json"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/jsonsize"
)

// Measure is the result's size as sent and whether go-sdk can send it
// (call.Sizer): contents and structured content are walked, not encoded,
// so a result is not encoded twice; anything else is encoded once.
func (t toolResult) Measure() (int, error) {
	r := t.r
	size := 0
	known := true
	for _, c := range r.Content {
		n, ok := contentSize(c)
		size += n
		known = known && ok
	}
	if r.StructuredContent != nil {
		n, err := jsonsize.Value(r.StructuredContent)
		if err != nil {
			return 0, err
		}
		size += n
	}
	if r.Meta != nil || r.InputRequests != nil || !known {
		b, err := json.Marshal(r)
		if err != nil {
			return 0, err
		}
		return max(size, len(b)), nil
	}
	return size, nil
}

// contentSize is a content's size as sent; ok is false for a kind it does
// not know (sized as a small content).
func contentSize(c mcp.Content) (int, bool) {
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

// Cut returns the result within budget (see call.Sizer).
func (t toolResult) Cut(budget int, note string) call.Result {
	r := t.r
	if r.StructuredContent != nil {
		// A client checks structured content against the output schema:
		// a cut copy would be invalid, so the result becomes the note.
		return toolResult{&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: note}}}}
	}
	left := budget - len(note)
	cut := jsonsize.CutText
	if r.IsError {
		cut = jsonsize.CutMiddle // an error's cause is usually at its end
	}
	cp := *r
	cp.Content = make([]mcp.Content, 0, len(r.Content)+1)
	dropped := 0
	for _, c := range r.Content {
		n, _ := contentSize(c)
		if v, ok := c.(*mcp.TextContent); ok && v != nil && n > left {
			nv := *v
			nv.Text = cut(v.Text, left)
			c, n = &nv, len(nv.Text)
		} else if n > left { // binary data is never cut: it is left out whole
			dropped++
			continue
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
	cp.Content = append(cp.Content, &mcp.TextContent{Text: note})
	return toolResult{&cp}
}
