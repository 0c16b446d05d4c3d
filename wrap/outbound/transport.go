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
)

// Post is one HTTP POST of an MCP session, as Transport saw it.
type Post struct {
	// Method is the JSON-RPC method ("tools/call", "initialize", …); ""
	// for a response the client sends back or a body that is not JSON-RPC.
	Method string
	// ID is the request's JSON-RPC id; zero for a notification.
	ID ID
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

// Trace collects the POSTs made with a context. It is safe for concurrent
// use.
type Trace struct {
	mu    sync.Mutex
	posts []*Post
}

type traceKey struct{}

// WithTrace returns a context under which Transport records every POST into
// the returned Trace. Client.Call does this per call; use it directly to see
// the POSTs of Start, Initialize or ListTools.
func WithTrace(ctx context.Context) (context.Context, *Trace) {
	t := &Trace{}
	return context.WithValue(ctx, traceKey{}, t), t
}

// Posts returns a snapshot of the POSTs recorded so far.
func (t *Trace) Posts() []Post {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Post, len(t.posts))
	for i, p := range t.posts {
		out[i] = *p
		if p.Verdict != nil {
			v := *p.Verdict
			out[i].Verdict = &v
		}
	}
	return out
}

func (t *Trace) add(p *Post) {
	t.mu.Lock()
	t.posts = append(t.posts, p)
	t.mu.Unlock()
}

func (t *Trace) set(p *Post, v Verdict, elapsed time.Duration) {
	t.mu.Lock()
	p.Verdict = &v
	p.Elapsed = elapsed
	t.mu.Unlock()
}

// Transport is an http.RoundTripper for transport.WithHTTPBasicClient that
// observes every POST of an MCP session and classifies tools/call responses
// as the client reads them. It changes nothing on the wire.
type Transport struct {
	next http.RoundTripper
	opts []ClassifyOption
}

// NewTransport wraps next (nil means a clone of http.DefaultTransport).
// opts configure the classifier, e.g. WithMaxMessageBytes.
func NewTransport(next http.RoundTripper, opts ...ClassifyOption) *Transport {
	if next == nil {
		next = http.DefaultTransport.(*http.Transport).Clone()
	}
	return &Transport{next: next, opts: append([]ClassifyOption(nil), opts...)}
}

// NewHTTPClient returns an *http.Client whose transport is a Transport over
// a clone of http.DefaultTransport, ready for transport.WithHTTPBasicClient.
func NewHTTPClient(opts ...ClassifyOption) *http.Client {
	return &http.Client{Transport: NewTransport(nil, opts...)}
}

// CloseIdleConnections closes the idle connections of the wrapped transport.
func (t *Transport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	tr, _ := req.Context().Value(traceKey{}).(*Trace)
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

	p := &Post{ProtocolVersion: req.Header.Get("Mcp-Protocol-Version")}
	var msg struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) == nil {
		p.Method = msg.Method
		p.ID, _ = ParseID(msg.ID)
		if msg.Method == "tools/call" {
			p.Tool = msg.Params.Name
		}
	}
	toolCall := p.Method == "tools/call" && !p.ID.IsZero()
	tr.add(p)
	start := time.Now()
	resp, err := t.next.RoundTrip(r2)
	if err != nil {
		tr.mu.Lock()
		p.Err = err
		tr.mu.Unlock()
		if toolCall {
			tr.set(p, ClassifyTransportError(err), time.Since(start))
		}
		return nil, err
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	tr.mu.Lock()
	p.Status = resp.StatusCode
	p.ContentType = ct
	p.Elapsed = time.Since(start)
	tr.mu.Unlock()
	if !toolCall {
		return resp, nil
	}
	c := NewClassifier(resp.StatusCode, resp.Header, p.ID, t.opts...)
	if c.Decided() || resp.Body == nil {
		tr.set(p, c.Finish(nil), time.Since(start))
		return resp, nil
	}
	resp.Body = &teeBody{rc: resp.Body, c: c, done: func(v Verdict) { tr.set(p, v, time.Since(start)) }}
	return resp, nil
}

// errAbandoned is the cause recorded when the client closes an event stream
// before the response arrived (its context ended, or it gave up).
var errAbandoned = errors.New("the client closed the response stream before the response arrived")

// teeBody feeds what the client reads into the classifier. mcp-go reads SSE
// in a goroutine and may Close concurrently, hence the mutex.
type teeBody struct {
	rc       io.ReadCloser
	mu       sync.Mutex
	c        *Classifier
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
	case b.c.Decided():
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
		if b.c.Streaming() {
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
	b.done(b.c.Finish(err))
}
