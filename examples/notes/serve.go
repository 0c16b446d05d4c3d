package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// conn is a server on loopback and an initialized mcp-go client of it whose
// HTTP responses wire reads: mcp-go turns a JSON-RPC error into a Go error
// and drops its data, the wire keeps it.
type conn struct {
	client *client.Client
	wire   *wire
	close  func()
}

// serve serves s over streamable HTTP on 127.0.0.1 and connects a client.
func serve(s *server.MCPServer, opts ...client.ClientOption) (*conn, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	// Close, not Shutdown: the client's event streams stay open until then.
	// A bare server's handler panics are part of the demo; keep them off stderr.
	hs := &http.Server{Handler: server.NewStreamableHTTPServer(s), ReadHeaderTimeout: 5 * time.Second,
		ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = hs.Serve(ln) }()
	w := &wire{}
	base := http.DefaultTransport.(*http.Transport).Clone()
	hc := &http.Client{Transport: w.roundTripper(base)}
	tr, err := transport.NewStreamableHTTP("http://"+ln.Addr().String()+"/mcp", transport.WithHTTPBasicClient(hc))
	if err != nil {
		_ = hs.Close()
		return nil, err
	}
	cl := client.NewClient(tr, opts...)
	c := &conn{client: cl, wire: w, close: func() { _ = cl.Close(); _ = hs.Close(); base.CloseIdleConnections() }}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.Start(ctx); err != nil {
		c.close()
		return nil, err
	}
	if _, err := cl.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "notes", Version: "0"}}}); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// wire keeps the error member of every JSON-RPC message the client received,
// from JSON bodies and SSE data lines alike. It is safe for concurrent use.
type wire struct {
	mu     sync.Mutex
	errors []json.RawMessage
}

func (w *wire) roundTripper(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		resp.Body = &recordedBody{rc: resp.Body, wire: w, sse: strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")}
		return resp, nil
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// reset forgets what was recorded.
func (w *wire) reset() {
	w.mu.Lock()
	w.errors = nil
	w.mu.Unlock()
}

// jsonrpcErrors returns the error members recorded so far.
func (w *wire) jsonrpcErrors() []json.RawMessage {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]json.RawMessage(nil), w.errors...)
}

// recordedBody hands the body's JSON-RPC errors to wire when the body ends
// or is closed (mcp-go may close on one goroutine while reading on another).
type recordedBody struct {
	rc   io.ReadCloser
	wire *wire
	sse  bool
	mu   sync.Mutex
	buf  bytes.Buffer
	once sync.Once
}

func (b *recordedBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	b.buf.Write(p[:n])
	b.mu.Unlock()
	if err != nil {
		b.record()
	}
	return n, err
}

func (b *recordedBody) Close() error {
	b.record()
	return b.rc.Close()
}

func (b *recordedBody) record() {
	b.once.Do(func() {
		b.mu.Lock()
		body := bytes.Clone(b.buf.Bytes())
		b.mu.Unlock()
		msgs := []string{string(body)}
		if b.sse {
			msgs = nil
			for line := range strings.SplitSeq(string(body), "\n") {
				if data, ok := strings.CutPrefix(line, "data:"); ok {
					msgs = append(msgs, strings.TrimSpace(data))
				}
			}
		}
		for _, msg := range msgs {
			var m struct {
				Error json.RawMessage `json:"error"`
			}
			if json.Unmarshal([]byte(msg), &m) == nil && len(m.Error) > 0 && string(m.Error) != "null" {
				b.wire.mu.Lock()
				b.wire.errors = append(b.wire.errors, m.Error)
				b.wire.mu.Unlock()
			}
		}
	})
}
