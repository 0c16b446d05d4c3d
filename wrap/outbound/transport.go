package outbound

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"sync"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/jsonrpcid"
)

// Post is one HTTP POST of an MCP session, as the RoundTripper of
// NewTransport saw it.
type Post struct {
	// Method is the JSON-RPC method ("tools/call", "initialize", …); ""
	// for a response the client sends back or a body that is not JSON-RPC.
	Method string
	// ID is the request's JSON-RPC id as JSON text (normalised as
	// Verdict.ID); "" for a notification.
	ID string
	// Tool is params.name of a tools/call.
	Tool string
	// ProtocolVersion is the MCP-Protocol-Version header the client sent.
	ProtocolVersion string
	// Status is the HTTP status; 0 when no response arrived.
	Status int
	// ContentType is the response's media type.
	ContentType string
	// Verdict is the classification of a tools/call response (nil for
	// other methods). It is set once the verdict is known: at once for an
	// HTTP error, else when the body has been read far enough or closed.
	Verdict *Verdict
	// Err is the error RoundTrip returned, if any.
	Err error
	// Elapsed is the time from sending to the verdict (or to the headers
	// for methods other than tools/call).
	Elapsed time.Duration
}

// trace collects the POSTs made with a context. It is safe for concurrent
// use.
type trace struct {
	mu       sync.Mutex
	recorded []*Post
}

type traceKey struct{}

// WithTrace returns a context under which the RoundTripper of NewTransport
// records every POST, and a function that returns a snapshot of the POSTs
// recorded so far, in the order they were sent. Client.Call does this per
// call; use it directly to see the POSTs of Start, Initialize or ListTools.
// The function is safe for concurrent use.
func WithTrace(ctx context.Context) (context.Context, func() []Post) {
	t := &trace{}
	return context.WithValue(ctx, traceKey{}, t), t.posts
}

// posts returns a snapshot of the POSTs recorded so far.
func (t *trace) posts() []Post {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Post, len(t.recorded))
	for i, p := range t.recorded {
		out[i] = *p
		if p.Verdict != nil {
			v := *p.Verdict
			out[i].Verdict = &v
		}
	}
	return out
}

func (t *trace) add(p *Post) {
	t.mu.Lock()
	t.recorded = append(t.recorded, p)
	t.mu.Unlock()
}

func (t *trace) set(p *Post, v Verdict, elapsed time.Duration) {
	t.mu.Lock()
	p.Verdict = &v
	p.Elapsed = elapsed
	t.mu.Unlock()
}

// NewTransport returns an http.RoundTripper for an *http.Client given to
// mcp-go's transport.WithHTTPBasicClient: it observes every POST of an MCP
// session and classifies tools/call responses as the client reads them,
// changing nothing on the wire. It wraps next (nil means a clone of
// http.DefaultTransport); of the options, WithMaxMessageBytes applies. The
// http.Client's CloseIdleConnections reaches next's. It is safe for
// concurrent use.
func NewTransport(next http.RoundTripper, opts ...Option) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport.(*http.Transport).Clone()
	}
	return &roundTripper{next: next, max: configure(opts).maxBytes}
}

// roundTripper is what NewTransport returns.
type roundTripper struct {
	next http.RoundTripper
	max  int64
}

// CloseIdleConnections closes the idle connections of the wrapped transport.
func (t *roundTripper) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// RoundTrip implements http.RoundTripper.
func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	tr, _ := req.Context().Value(traceKey{}).(*trace)
	if tr == nil || req.Method != http.MethodPost || req.Body == nil {
		return t.next.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, err
	}
	r2 := req.Clone(req.Context())
	r2.Body = io.NopCloser(bytes.NewReader(body))
	r2.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	r2.ContentLength = int64(len(body))
	p := postOf(req.Header, body)
	toolCall := p.Method == "tools/call" && p.ID != ""
	tr.add(p)
	start := time.Now()
	resp, err := t.next.RoundTrip(r2)
	if err != nil {
		tr.failed(p, err, toolCall, start)
		return nil, err
	}
	tr.answered(p, resp, start)
	if toolCall {
		tr.classify(p, resp, start, t.max)
	}
	return resp, nil
}

// failed records err, with which the POST p failed, and for a tools/call
// its verdict.
func (tr *trace) failed(p *Post, err error, toolCall bool, start time.Time) {
	tr.mu.Lock()
	p.Err = err
	tr.mu.Unlock()
	if toolCall {
		tr.set(p, transportError(err), time.Since(start))
	}
}

// classify sets the verdict on resp, the answer to the tools/call p: now
// when its head decides it, else as the caller reads its body.
func (tr *trace) classify(p *Post, resp *http.Response, start time.Time, max int64) {
	c := newClassifier(resp.StatusCode, resp.Header, p.ID, max)
	if c.decided || resp.Body == nil {
		tr.set(p, c.finish(nil), time.Since(start))
		return
	}
	resp.Body = &teeBody{rc: resp.Body, c: c, done: func(v Verdict) { tr.set(p, v, time.Since(start)) }}
}

// postOf is the Post a request with this header and body makes: its
// method, id and tool, as far as the body says.
func postOf(h http.Header, body []byte) *Post {
	p := &Post{ProtocolVersion: h.Get("Mcp-Protocol-Version")}
	var msg struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return p
	}
	p.Method = msg.Method
	p.ID, _ = jsonrpcid.Parse(msg.ID)
	if msg.Method == "tools/call" {
		p.Tool = msg.Params.Name
	}
	return p
}

// answered records the status and content type of the response to p.
func (tr *trace) answered(p *Post, resp *http.Response, start time.Time) {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	tr.mu.Lock()
	p.Status = resp.StatusCode
	p.ContentType = ct
	p.Elapsed = time.Since(start)
	tr.mu.Unlock()
}

// errAbandoned is the cause recorded when the client closes an event stream
// before the response arrived (its context ended, or it gave up).
var errAbandoned = errors.New("the client closed the response stream before the response arrived")

// teeBody feeds what the client reads into the classifier. mcp-go reads SSE
// in a goroutine and may Close concurrently, hence the mutex.
type teeBody struct {
	rc       io.ReadCloser
	mu       sync.Mutex
	c        *classifier
	finished bool
	done     func(Verdict)
}

func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return n, err
	}
	if n > 0 {
		_, _ = b.c.Write(p[:n])
	}
	switch {
	case b.c.decided:
		b.finish(nil)
	case errors.Is(err, io.EOF):
		b.finish(nil)
	case err != nil:
		b.finish(err)
	}
	return n, err
}

func (b *teeBody) Close() error {
	b.mu.Lock()
	if !b.finished {
		if b.c.sse {
			b.finish(errAbandoned)
		} else {
			b.finish(nil)
		}
	}
	b.mu.Unlock()
	return b.rc.Close()
}

func (b *teeBody) finish(err error) {
	b.finished = true
	b.done(b.c.finish(err))
}
