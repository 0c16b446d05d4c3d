package outbound_test

import (
	"io"
	"net/http"
	"slices"
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
		whole := outbound.Classify(captured(status, h, body), nil, "1", outbound.WithMaxMessageBytes(4096))
		if !slices.Contains(outbound.Outcomes, whole.Outcome) {
			t.Fatalf("undefined outcome %q", whole.Outcome)
		}
		// Feed the same body in chunks, as a live stream arrives.
		resp := &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(&chunkReader{rest: body, n: int(chunk%64) + 1})}
		if live := outbound.Classify(resp, nil, "1", outbound.WithMaxMessageBytes(4096)); live.Outcome != whole.Outcome {
			t.Fatalf("chunked %s, whole %s", live.Outcome, whole.Outcome)
		}
	})
}

// chunkReader reads rest at most n bytes at a time.
type chunkReader struct {
	rest []byte
	n    int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.rest) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), r.n)], r.rest)
	r.rest = r.rest[k:]
	return k, nil
}
