package outbound_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/wrap/outbound"
)

// reply is what the loopback peer answers to one POST.
type reply struct {
	status int
	ctype  string
	header map[string]string
	body   string
}

// peer is a real HTTP server on 127.0.0.1 that answers successive POSTs with
// reply(n), n counting from 1, and counts them.
type peer struct {
	url   string
	mu    sync.Mutex
	posts int
}

func (p *peer) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.posts
}

func startPeer(t *testing.T, next func(n int) reply) *peer {
	t.Helper()
	p := &peer{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		p.mu.Lock()
		p.posts++
		n := p.posts
		p.mu.Unlock()
		rp := next(n)
		ct := rp.ctype
		if ct == "" {
			ct = "application/json"
		}
		w.Header().Set("Content-Type", ct)
		for k, v := range rp.header {
			w.Header().Set(k, v)
		}
		w.WriteHeader(rp.status)
		_, _ = io.WriteString(w, rp.body)
	}))
	t.Cleanup(srv.Close)
	p.url = srv.URL + "/mcp"
	return p
}

// post sends one tools/call with the given id and classifies the live answer.
func post(t *testing.T, url string, id string) outbound.Verdict {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"synthetic","arguments":{}}}`, id)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return outbound.Classify(resp, nil, id, outbound.WithMaxMessageBytes(1<<20))
}

// captured is a response whose body reads body: how a captured exchange is
// classified.
func captured(status int, h http.Header, body []byte) *http.Response {
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(bytes.NewReader(body))}
}

const (
	good      = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"ok"}],"isError":false}}`
	rpcError  = `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"synthetic invalid params"}}`
	toolError = `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"failed"}],"isError":true}}`
)

type wantVerdict struct {
	outcome    outbound.Outcome
	layer      outbound.Layer
	status     int
	code       int64
	resultType string
}

func check(t *testing.T, got outbound.Verdict, want wantVerdict) {
	t.Helper()
	if got.Outcome != want.outcome || got.Outcome.Layer() != want.layer {
		t.Errorf("outcome %s (%s), want %s (%s); detail %q", got.Outcome, got.Outcome.Layer(), want.outcome, want.layer, got.Detail)
	}
	if want.status != 0 && got.HTTPStatus != want.status {
		t.Errorf("status %d, want %d", got.HTTPStatus, want.status)
	}
	if got.ErrorCode != want.code {
		t.Errorf("error code %d, want %d", got.ErrorCode, want.code)
	}
	if got.ResultType != want.resultType {
		t.Errorf("resultType %q, want %q", got.ResultType, want.resultType)
	}
}

// TestCoreCases runs the eleven cases of the three-layer table, each over a
// real loopback HTTP server, and expects exactly their outcomes.
func TestCoreCases(t *testing.T) {
	cases := []struct {
		name string
		r    reply
		want wantVerdict
	}{
		{"baseline complete", reply{200, "", nil, good}, wantVerdict{outbound.OutcomeToolSuccess, outbound.LayerApplication, 200, 0, "complete"}},
		{"HTTP 200 with JSON-RPC error", reply{200, "", nil, rpcError}, wantVerdict{outbound.OutcomeJSONRPCError, outbound.LayerProtocol, 200, -32602, ""}},
		{"HTTP 200 with isError", reply{200, "", nil, toolError}, wantVerdict{outbound.OutcomeToolError, outbound.LayerApplication, 200, 0, "complete"}},
		{"HTTP 500 with success-looking body", reply{500, "", nil, good}, wantVerdict{outbound.OutcomeHTTPError, outbound.LayerTransport, 500, 0, ""}},
		{"malformed JSON", reply{200, "", nil, `{unclosed`}, wantVerdict{outbound.OutcomeMalformedJSON, outbound.LayerProtocol, 200, 0, ""}},
		{"result and error together", reply{200, "", nil, `{"jsonrpc":"2.0","id":1,"result":{"content":[]},"error":{"code":-32602,"message":"x"}}`},
			wantVerdict{outbound.OutcomeInvalidEnvelope, outbound.LayerProtocol, 200, 0, ""}},
		{"wrong response id", reply{200, "", nil, strings.Replace(good, `"id":1`, `"id":99`, 1)}, wantVerdict{outbound.OutcomeInvalidEnvelope, outbound.LayerProtocol, 200, 0, ""}},
		{"input_required", reply{200, "", nil, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"approval":{"method":"elicitation/create","params":{"mode":"form","message":"synthetic input"}}}}}`},
			wantVerdict{outbound.OutcomeInputRequired, outbound.LayerInteraction, 200, 0, "input_required"}},
		{"legacy result without resultType", reply{200, "", nil, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"legacy ok"}],"isError":false}}`},
			wantVerdict{outbound.OutcomeToolSuccess, outbound.LayerApplication, 200, 0, "complete"}},
		{"content not an array", reply{200, "", nil, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":"not-an-array","isError":false}}`},
			wantVerdict{outbound.OutcomeInvalidToolResult, outbound.LayerProtocol, 200, 0, "complete"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := startPeer(t, func(int) reply { return tc.r })
			check(t, post(t, p.url, "1"), tc.want)
			if p.count() != 1 {
				t.Errorf("%d POSTs, want 1", p.count())
			}
		})
	}
	// The eleventh case: 503, then an explicit second POST by the test.
	t.Run("503 then 200 requires an explicit second POST", func(t *testing.T) {
		p := startPeer(t, func(n int) reply {
			if n == 1 {
				return reply{503, "", nil, `{"note":"synthetic outage"}`}
			}
			return reply{200, "", nil, good}
		})
		check(t, post(t, p.url, "1"), wantVerdict{outbound.OutcomeHTTPError, outbound.LayerTransport, 503, 0, ""})
		if p.count() != 1 {
			t.Fatalf("%d POSTs after the first call, want 1: nothing retries on its own", p.count())
		}
		check(t, post(t, p.url, "1"), wantVerdict{outbound.OutcomeToolSuccess, outbound.LayerApplication, 200, 0, "complete"})
		if p.count() != 2 {
			t.Errorf("%d POSTs, want 2", p.count())
		}
	})
}

func sse(events ...string) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString(e)
		b.WriteString("\n\n")
	}
	return b.String()
}

const progress = `event: message
data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`

// TestEdgeCases covers what the core table leaves out (SSE framing, ids,
// status codes, odd bodies), over the same loopback server.
func TestEdgeCases(t *testing.T) {
	const ev = "text/event-stream"
	cases := []struct {
		name string
		id   string
		r    reply
		want wantVerdict
	}{
		{"SSE success after a notification", "1", reply{200, ev, nil, sse(": keepalive", progress, "id: 7\nevent: message\ndata: "+good)},
			wantVerdict{outbound.OutcomeToolSuccess, outbound.LayerApplication, 200, 0, "complete"}},
		{"SSE with CRLF lines and split data", "1", reply{200, ev, nil, strings.ReplaceAll("data: {\"jsonrpc\":\"2.0\",\"id\":1,\ndata: \"result\":{\"content\":[]}}\n\n", "\n", "\r\n")},
			wantVerdict{outbound.OutcomeToolSuccess, outbound.LayerApplication, 200, 0, "complete"}},
		{"SSE error response", "1", reply{200, ev, nil, sse(progress, "data: "+rpcError)},
			wantVerdict{outbound.OutcomeJSONRPCError, outbound.LayerProtocol, 200, -32602, ""}},
		{"SSE truncated before the response", "1", reply{200, ev, nil, sse(progress) + "data: {\"jsonrpc\":\"2.0\",\"id\":1,"},
			wantVerdict{outbound.OutcomeIncompleteStream, outbound.LayerTransport, 200, 0, ""}},
		{"SSE with no events", "1", reply{200, ev, nil, ""},
			wantVerdict{outbound.OutcomeIncompleteStream, outbound.LayerTransport, 200, 0, ""}},
		{"SSE event that is not JSON", "1", reply{200, ev, nil, sse("data: <html>")},
			wantVerdict{outbound.OutcomeMalformedJSON, outbound.LayerProtocol, 200, 0, ""}},
		{"202 with an empty body", "1", reply{202, "", nil, ""},
			wantVerdict{outbound.OutcomeNotToolCallResponse, outbound.LayerTransport, 202, 0, ""}},
		{"429 with Retry-After", "1", reply{429, "", map[string]string{"Retry-After": "3"}, `{"error":"slow down"}`},
			wantVerdict{outbound.OutcomeHTTPError, outbound.LayerTransport, 429, 0, ""}},
		{"HTML error page with 200", "1", reply{200, "text/html; charset=utf-8", nil, "<html><body>Bad gateway</body></html>"},
			wantVerdict{outbound.OutcomeMalformedJSON, outbound.LayerProtocol, 200, 0, ""}},
		{"HTML body labelled JSON", "1", reply{200, "", nil, "<html><body>Bad gateway</body></html>"},
			wantVerdict{outbound.OutcomeMalformedJSON, outbound.LayerProtocol, 200, 0, ""}},
		{"batch array", "1", reply{200, "", nil, "[" + good + "]"},
			wantVerdict{outbound.OutcomeInvalidEnvelope, outbound.LayerProtocol, 200, 0, ""}},
		{"string id answered with a number", `"1"`, reply{200, "", nil, good},
			wantVerdict{outbound.OutcomeInvalidEnvelope, outbound.LayerProtocol, 200, 0, ""}},
		{"number id answered with a string", "1", reply{200, "", nil, strings.Replace(good, `"id":1`, `"id":"1"`, 1)},
			wantVerdict{outbound.OutcomeInvalidEnvelope, outbound.LayerProtocol, 200, 0, ""}},
		{"string id answered with the same string", `"a-1"`, reply{200, "", nil, strings.Replace(good, `"id":1`, `"id":"a-1"`, 1)},
			wantVerdict{outbound.OutcomeToolSuccess, outbound.LayerApplication, 200, 0, "complete"}},
		{"null result", "1", reply{200, "", nil, `{"jsonrpc":"2.0","id":1,"result":null}`},
			wantVerdict{outbound.OutcomeInvalidToolResult, outbound.LayerProtocol, 200, 0, ""}},
		{"isError a string", "1", reply{200, "", nil, `{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":"true"}}`},
			wantVerdict{outbound.OutcomeInvalidToolResult, outbound.LayerProtocol, 200, 0, "complete"}},
		{"unknown resultType", "1", reply{200, "", nil, `{"jsonrpc":"2.0","id":1,"result":{"resultType":"partial","content":[]}}`},
			wantVerdict{outbound.OutcomeInvalidToolResult, outbound.LayerProtocol, 200, 0, "partial"}},
		{"jsonrpc 1.0", "1", reply{200, "", nil, strings.Replace(good, `"2.0"`, `"1.0"`, 1)},
			wantVerdict{outbound.OutcomeInvalidEnvelope, outbound.LayerProtocol, 200, 0, ""}},
		{"error code not an integer", "1", reply{200, "", nil, `{"jsonrpc":"2.0","id":1,"error":{"code":"-32602","message":"x"}}`},
			wantVerdict{outbound.OutcomeInvalidEnvelope, outbound.LayerProtocol, 200, 0, ""}},
		{"empty 200", "1", reply{200, "", nil, ""},
			wantVerdict{outbound.OutcomeMalformedJSON, outbound.LayerProtocol, 200, 0, ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := startPeer(t, func(int) reply { return tc.r })
			got := post(t, p.url, tc.id)
			check(t, got, tc.want)
			if tc.r.status == 429 && (!got.HasRetryAfter || got.RetryAfter != 3*time.Second) {
				t.Errorf("Retry-After %v (%v), want 3s", got.RetryAfter, got.HasRetryAfter)
			}
			if got.Detail == "" && got.Outcome != outbound.OutcomeToolSuccess && got.Outcome != outbound.OutcomeInputRequired && got.Outcome != outbound.OutcomeToolError {
				t.Errorf("no detail for %s", got.Outcome)
			}
		})
	}
}

// TestSSEStrayResponseBeforeToolErrorIsSkipped: an event stream that first
// carries a response to another request id, then this request's result with
// isError true, is TOOL_ERROR (it was INVALID_ENVELOPE "id 7 does not match"),
// and the verdict says a stray response was skipped.
func TestSSEStrayResponseBeforeToolErrorIsSkipped(t *testing.T) {
	const ev = "text/event-stream"
	stray := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"for someone else"}]}}`
	mine := `{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`
	cases := []struct {
		name   string
		body   string
		want   outbound.Outcome
		strays int
		detail string
	}{
		{"stray then tool error", sse("data: "+stray, "data: "+mine), outbound.OutcomeToolError, 1, "skipped a response to another request (id 7)"},
		{"two strays then tool error", sse("data: "+stray, progress, "data: "+strings.Replace(stray, `"id":7`, `"id":"1"`, 1), "data: "+mine),
			outbound.OutcomeToolError, 2, "skipped 2 responses to other requests (first id 7)"},
		{"stray error then success", sse("data: "+strings.Replace(rpcError, `"id":1`, `"id":8`, 1), "data: "+good), outbound.OutcomeToolSuccess, 1, "(id 8)"},
		{"only a stray, then the stream ends", sse("data: " + stray), outbound.OutcomeIncompleteStream, 1, "skipped a response to another request (id 7)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := startPeer(t, func(int) reply { return reply{200, ev, nil, tc.body} })
			got := post(t, p.url, "1")
			if got.Outcome != tc.want || got.StrayResponses != tc.strays || !strings.Contains(got.Detail, tc.detail) {
				t.Errorf("%s, %d strays, detail %q; want %s, %d strays, detail with %q", got.Outcome, got.StrayResponses, got.Detail, tc.want, tc.strays, tc.detail)
			}
			if got.Outcome != outbound.OutcomeIncompleteStream && got.ID != "1" {
				t.Errorf("verdict id %s, want the request's id 1", got.ID)
			}
		})
	}
	// A JSON body has one message: another id there is still no answer to this request.
	if got := outbound.Classify(captured(200, nil, []byte(stray)), nil, "1"); got.Outcome != outbound.OutcomeInvalidEnvelope {
		t.Errorf("JSON body with id 7: %s, want INVALID_ENVELOPE", got.Outcome)
	}
}

// TestInputRequiredWithoutInputRequests: input_required must carry
// inputRequests or a requestState; only a requestState is the load-shedding
// signal (INPUT_REQUIRED with no requests); neither is an invalid result.
func TestInputRequiredWithoutInputRequests(t *testing.T) {
	cases := []struct {
		name     string
		result   string
		want     outbound.Outcome
		requests int
		detail   string
	}{
		{"one input request", `{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{}}}}`, outbound.OutcomeInputRequired, 1, ""},
		{"only a requestState", `{"resultType":"input_required","requestState":"s1"}`, outbound.OutcomeInputRequired, 0, "sheds load"},
		{"empty inputRequests with a requestState", `{"resultType":"input_required","inputRequests":{},"requestState":"s1"}`, outbound.OutcomeInputRequired, 0, "sheds load"},
		{"neither", `{"resultType":"input_required"}`, outbound.OutcomeInvalidToolResult, 0, "without inputRequests or requestState"},
		{"empty inputRequests alone", `{"resultType":"input_required","inputRequests":{}}`, outbound.OutcomeInvalidToolResult, 0, "without inputRequests or requestState"},
		{"inputRequests an array", `{"resultType":"input_required","inputRequests":[],"requestState":"s1"}`, outbound.OutcomeInvalidToolResult, 0, "not an object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := outbound.Classify(captured(200, nil, []byte(`{"jsonrpc":"2.0","id":1,"result":`+tc.result+`}`)), nil, "1")
			if got.Outcome != tc.want || got.InputRequests != tc.requests || !strings.Contains(got.Detail, tc.detail) {
				t.Errorf("%s, %d requests, detail %q; want %s, %d, %q", got.Outcome, got.InputRequests, got.Detail, tc.want, tc.requests, tc.detail)
			}
		})
	}
}

// countingReader yields n bytes of a JSON string body and counts what was read.
type countingReader struct {
	left, read int64
	started    bool
}

func (r *countingReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		return 0, io.EOF
	}
	n := min(int64(len(p)), r.left)
	for i := range p[:n] {
		p[i] = 'a'
	}
	if !r.started {
		copy(p, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`)
		r.started = true
	}
	r.left -= n
	r.read += n
	return int(n), nil
}

// TestHugeBodyIsBounded: a 200 whose body is far larger than the limit gives
// BODY_TOO_LARGE after reading about the limit, not the whole body.
func TestHugeBodyIsBounded(t *testing.T) {
	const limit = 64 << 10
	t.Run("JSON over loopback", func(t *testing.T) {
		src := &countingReader{left: 64 << 20}
		var read int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.Copy(w, src)
		}))
		defer srv.Close()
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		got := outbound.Classify(resp, nil, "1", outbound.WithMaxMessageBytes(limit))
		read = got.Bytes
		resp.Body.Close()
		if got.Outcome != outbound.OutcomeBodyTooLarge {
			t.Fatalf("outcome %s, want BODY_TOO_LARGE", got.Outcome)
		}
		if read > limit+64<<10 {
			t.Errorf("read %d bytes for a %d limit", read, limit)
		}
	})
	t.Run("one huge SSE event", func(t *testing.T) {
		body := "data: " + strings.Repeat("x", 4*limit) + "\n\n"
		got := outbound.Classify(captured(200, http.Header{"Content-Type": {"text/event-stream"}}, []byte(body)), nil, "1", outbound.WithMaxMessageBytes(limit))
		if got.Outcome != outbound.OutcomeBodyTooLarge {
			t.Fatalf("outcome %s, want BODY_TOO_LARGE", got.Outcome)
		}
	})
	t.Run("many small SSE events are fine", func(t *testing.T) {
		var b strings.Builder
		for range 2000 {
			b.WriteString(progress + "\n\n")
		}
		b.WriteString("data: " + good + "\n\n")
		got := outbound.Classify(captured(200, http.Header{"Content-Type": {"text/event-stream"}}, []byte(b.String())), nil, "1", outbound.WithMaxMessageBytes(limit))
		if got.Outcome != outbound.OutcomeToolSuccess || got.Events != 2001 {
			t.Fatalf("outcome %s after %d events, want TOOL_SUCCESS after 2001", got.Outcome, got.Events)
		}
	})
}

// TestStreamStopsAtTheResponse: the live classifier returns as soon as the
// response event arrives, even though the server keeps the stream open.
func TestStreamStopsAtTheResponse(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, sse(progress, "data: "+good))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	resp, err := http.Post(srv.URL, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got := outbound.Classify(resp, nil, "1"); got.Outcome != outbound.OutcomeToolSuccess {
		t.Fatalf("outcome %s, want TOOL_SUCCESS", got.Outcome)
	}
}

// TestConnectionClosedMidBody: a body cut by a broken connection is an
// incomplete stream, with the read error as cause.
func TestConnectionClosedMidBody(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 4096)
		_, _ = c.Read(buf)
		_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n"+good[:40])
		_ = c.Close()
	}()
	resp, err := http.Post("http://"+ln.Addr().String(), "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := outbound.Classify(resp, nil, "1")
	if got.Outcome != outbound.OutcomeIncompleteStream || got.Cause == nil {
		t.Fatalf("outcome %s cause %v, want INCOMPLETE_STREAM with a cause", got.Outcome, got.Cause)
	}
}

func TestClassifyNoResponse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = http.Post("http://"+addr, "application/json", strings.NewReader(`{}`))
	if err == nil {
		t.Fatal("no error from a closed port")
	}
	got := outbound.Classify(nil, err, "1")
	if got.Outcome != outbound.OutcomeNetworkError || got.Outcome.Layer() != outbound.LayerTransport || !errors.Is(got.Cause, err) {
		t.Fatalf("got %+v", got)
	}
	if strings.Contains(got.Detail, addr) {
		t.Errorf("detail leaks the address: %q", got.Detail)
	}
	if got := outbound.Classify(nil, nil, "1"); got.Outcome != outbound.OutcomeNetworkError || got.Detail == "" {
		t.Errorf("no response and no error: %+v", got)
	}
}

func TestServerErrorOfAnMcpwrapResult(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"upstream busy"}],"isError":true,` +
		`"structuredContent":{"error":{"code":"rate_limited","message":"m","retryable":true,"retryAfterSeconds":2}}}}`
	got := outbound.Classify(captured(200, nil, []byte(body)), nil, "1")
	if got.Outcome != outbound.OutcomeToolError || got.ServerError == nil || got.ServerError.Code != "rate_limited" || got.Text != "upstream busy" {
		t.Fatalf("got %+v", got)
	}
}

// BenchmarkClassify measures a JSON success and an SSE success, read from
// a body in memory.
func BenchmarkClassify(b *testing.B) {
	jsonHdr := http.Header{"Content-Type": {"application/json"}}
	sseHdr := http.Header{"Content-Type": {"text/event-stream"}}
	sseBody := []byte(sse(progress, "data: "+good))
	b.Run("json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = outbound.Classify(captured(200, jsonHdr, []byte(good)), nil, "1")
		}
	})
	b.Run("sse", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = outbound.Classify(captured(200, sseHdr, sseBody), nil, "1")
		}
	})
}
