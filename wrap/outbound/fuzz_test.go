package outbound_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/mcpwrap/mcpwrap/wrap/outbound"
)

// FuzzClassify: whatever the status, content type and body, the classifier
// never panics, returns a defined outcome, and the live (chunked) path agrees
// with the captured one.
func FuzzClassify(f *testing.F) {
	for _, s := range []struct {
		status int
		ct     string
		body   string
	}{
		{200, "application/json", good},
		{200, "application/json", rpcError},
		{200, "application/json", toolError},
		{200, "application/json", `{unclosed`},
		{200, "application/json", "[" + good + "]"},
		{200, "application/json", `{"jsonrpc":"2.0","id":1,"result":null}`},
		{200, "application/json", `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{}}}`},
		{200, "text/event-stream", sse(progress, "data: "+good)},
		{200, "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":1,\"error\":{\"code\":1,\"message\":\"m\"}}\r\r"},
		{200, "text/event-stream", sse(progress)},
		{503, "application/json", good},
		{202, "", ""},
		{200, "text/html", "<html>"},
	} {
		f.Add(s.status, s.ct, []byte(s.body), uint8(7))
	}
	f.Fuzz(func(t *testing.T, status int, ct string, body []byte, chunk uint8) {
		h := http.Header{"Content-Type": {ct}}
		whole := outbound.Classify(status, h, body, outbound.NumberID(1), outbound.WithMaxMessageBytes(4096))
		if !whole.Outcome.Valid() {
			t.Fatalf("undefined outcome %d", whole.Outcome)
		}
		// Feed the same body in chunks, as a live stream arrives.
		c := outbound.NewClassifier(status, h, outbound.NumberID(1), outbound.WithMaxMessageBytes(4096))
		n := int(chunk%64) + 1
		for rest := body; len(rest) > 0 && !c.Decided(); {
			k := min(n, len(rest))
			_, _ = c.Write(rest[:k])
			rest = rest[k:]
		}
		live := c.Finish(nil)
		if live.Outcome != whole.Outcome {
			t.Fatalf("chunked %s, whole %s", live.Outcome, whole.Outcome)
		}
		resp := &http.Response{StatusCode: status, Header: h, Body: readCloser{bytes.NewReader(body)}}
		if got := outbound.ClassifyResponse(resp, outbound.NumberID(1), outbound.WithMaxMessageBytes(4096)); got.Outcome != whole.Outcome {
			t.Fatalf("live %s, whole %s", got.Outcome, whole.Outcome)
		}
	})
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }
