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

// conn is an MCP server on 127.0.0.1 and an initialized mcp-go client of
// it; wire holds the HTTP responses the client read, so that the demo
// shows a JSON-RPC error as it crossed the wire.
type conn struct {
	client *client.Client
	wire   *wire
	stop   func()
}

// serve serves s over streamable HTTP on 127.0.0.1 and connects an
// initialized mcp-go client to it.
func serve(s *server.MCPServer, opts ...client.ClientOption) (*conn, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	// The bare server's panics are part of the demo: keep them off stderr.
	hs := &http.Server{Handler: server.NewStreamableHTTPServer(s), ReadHeaderTimeout: 5 * time.Second,
		ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = hs.Serve(ln) }()
	w := &wire{next: http.DefaultTransport.(*http.Transport).Clone()}
	hc := &http.Client{Transport: w}
	tr, err := transport.NewStreamableHTTP("http://"+ln.Addr().String()+"/mcp", transport.WithHTTPBasicClient(hc))
	if err != nil {
		_ = hs.Close()
		return nil, err
	}
	cl := client.NewClient(tr, opts...)
	c := &conn{client: cl, wire: w, stop: func() { _ = cl.Close(); _ = hs.Close(); hc.CloseIdleConnections() }}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.Start(ctx); err != nil {
		c.Close()
		return nil, err
	}
	if _, err := cl.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "notes-demo", Version: "0"}}}); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close stops the client and the server.
func (c *conn) Close() { c.stop() }

// wire is an http.RoundTripper that keeps what the client reads of each
// response body. It is safe for concurrent use.
type wire struct {
	next   http.RoundTripper
	mu     sync.Mutex
	bodies []*body
}

// body is one response body; buf is under its wire's mu.
type body struct {
	io.ReadCloser
	w   *wire
	sse bool
	buf bytes.Buffer
}

func (w *wire) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	b := &body{ReadCloser: resp.Body, w: w, sse: strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")}
	resp.Body = b
	w.mu.Lock()
	w.bodies = append(w.bodies, b)
	w.mu.Unlock()
	return resp, nil
}

func (b *body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.w.mu.Lock()
	b.buf.Write(p[:n])
	b.w.mu.Unlock()
	return n, err
}

// reset forgets the responses so far.
func (w *wire) reset() {
	w.mu.Lock()
	w.bodies = nil
	w.mu.Unlock()
}

// errors returns the error member of every JSON-RPC message read since
// reset, from plain JSON bodies and from event-stream data lines alike.
func (w *wire) errors() []json.RawMessage {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []json.RawMessage
	for _, b := range w.bodies {
		msgs := []string{b.buf.String()}
		if b.sse {
			msgs = nil
			for line := range strings.SplitSeq(b.buf.String(), "\n") {
				if data, ok := strings.CutPrefix(line, "data:"); ok {
					msgs = append(msgs, data)
				}
			}
		}
		for _, msg := range msgs {
			var m struct {
				Error json.RawMessage `json:"error"`
			}
			if json.Unmarshal([]byte(msg), &m) == nil && len(m.Error) > 0 && string(m.Error) != "null" {
				out = append(out, m.Error)
			}
		}
	}
	return out
}
