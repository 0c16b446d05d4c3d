// Package loopback serves an MCP server or an HTTP handler on 127.0.0.1 for
// tests and the examples' demos: Serve connects a real mcp-go client whose
// HTTP responses Wire records, so a JSON-RPC error or a dropped connection
// on the wire can be counted; Restartable is an upstream that can be
// stopped, as a crash would, and started again on the same port. It links
// no testing (internal/testserver adds what needs a testing.TB).
package loopback

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

// Conn is a running streamable-HTTP server and an initialized client of it.
// It is safe for concurrent use.
type Conn struct {
	Client *client.Client
	URL    string
	Wire   *Wire
	close  func()
}

// Close stops the client and the server.
func (c *Conn) Close() {
	if c.close != nil {
		c.close()
	}
}

// Listen serves s over streamable HTTP on 127.0.0.1:0 and returns its URL
// and a stop function that closes the listener and every connection.
func Listen(s *server.MCPServer) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	// A bare server's panics are expected in some tests; keep them off stderr.
	hs := &http.Server{Handler: server.NewStreamableHTTPServer(s), ReadHeaderTimeout: 5 * time.Second,
		ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = hs.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/mcp", func() { _ = hs.Close() }, nil
}

// Serve serves s over streamable HTTP on 127.0.0.1:0 and connects a real,
// initialized mcp-go client to it whose HTTP responses Wire records: what a
// test or a demo needs to compare servers by what crossed the wire. Close
// stops both.
func Serve(s *server.MCPServer, opts ...client.ClientOption) (*Conn, error) {
	url, stopServer, err := Listen(s)
	if err != nil {
		return nil, err
	}
	wire := &Wire{}
	hc := &http.Client{Transport: wire.RoundTripper(http.DefaultTransport.(*http.Transport).Clone())}
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPBasicClient(hc))
	if err != nil {
		stopServer()
		return nil, err
	}
	cl := client.NewClient(tr, opts...)
	stop := func() {
		_ = cl.Close()
		stopServer()
		hc.CloseIdleConnections()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.Start(ctx); err != nil {
		stop()
		return nil, err
	}
	if _, err := cl.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "testserver", Version: "0"},
	}}); err != nil {
		stop()
		return nil, err
	}
	return &Conn{Client: cl, URL: url, Wire: wire, close: stop}, nil
}

// Call calls a tool with arguments.
func (c *Conn) Call(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	var req mcp.CallToolRequest
	req.Params.Name = tool
	req.Params.Arguments = args
	return c.Client.CallTool(ctx, req)
}

// TB is what CallRaw needs of a testing.TB.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// CallRaw calls a tool with arguments given as exact JSON text (none for
// ""), so a test controls what goes on the wire, and fails the test on a
// protocol or transport error.
func (c *Conn) CallRaw(t TB, tool, args string) *mcp.CallToolResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	if args != "" {
		req.Params.RawArguments = json.RawMessage(args)
	}
	res, err := c.Client.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("call %s %s: %v", tool, args, err)
	}
	return res
}

// Wire records every HTTP response the client received. It is safe for
// concurrent use.
type Wire struct {
	mu        sync.Mutex
	responses []Response
}

// Response is one recorded HTTP response.
type Response struct {
	Status      int
	ContentType string
	Body        []byte
	ReadErr     error
}

// RoundTripper returns next with recording added.
func (w *Wire) RoundTripper(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := next.RoundTrip(r)
		if err != nil {
			return nil, err
		}
		resp.Body = &teeBody{rc: resp.Body, wire: w, status: resp.StatusCode, ct: resp.Header.Get("Content-Type")}
		return resp, nil
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// teeBody records a response body as it is read. A client may close the
// body on one goroutine while another still reads it (a stream it gave up
// on), so what Read writes and record reads is under mu.
type teeBody struct {
	rc     io.ReadCloser
	wire   *Wire
	status int
	ct     string
	once   sync.Once
	mu     sync.Mutex
	buf    bytes.Buffer
	err    error
}

func (b *teeBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.mu.Lock()
	b.buf.Write(p[:n])
	if err != nil && !errors.Is(err, io.EOF) {
		b.err = err
	}
	b.mu.Unlock()
	if err != nil {
		b.record()
	}
	return n, err
}

func (b *teeBody) Close() error {
	b.record()
	return b.rc.Close()
}

func (b *teeBody) record() {
	b.once.Do(func() {
		b.mu.Lock()
		r := Response{Status: b.status, ContentType: b.ct, Body: bytes.Clone(b.buf.Bytes()), ReadErr: b.err}
		b.mu.Unlock()
		b.wire.mu.Lock()
		b.wire.responses = append(b.wire.responses, r)
		b.wire.mu.Unlock()
	})
}

// Responses returns what was recorded so far.
func (w *Wire) Responses() []Response {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Response(nil), w.responses...)
}

// Reset forgets what was recorded.
func (w *Wire) Reset() {
	w.mu.Lock()
	w.responses = nil
	w.mu.Unlock()
}

// JSONRPCErrors returns the error members of every JSON-RPC message
// recorded, from plain JSON bodies and from SSE data lines alike.
func (w *Wire) JSONRPCErrors() []json.RawMessage {
	var out []json.RawMessage
	for _, r := range w.Responses() {
		for _, msg := range Messages(r) {
			var m struct {
				Error json.RawMessage `json:"error"`
			}
			if json.Unmarshal(msg, &m) == nil && len(m.Error) > 0 && string(m.Error) != "null" {
				out = append(out, m.Error)
			}
		}
	}
	return out
}

// Messages splits a recorded body into its JSON-RPC messages.
func Messages(r Response) []json.RawMessage {
	var out []json.RawMessage
	if strings.HasPrefix(r.ContentType, "text/event-stream") {
		for line := range strings.SplitSeq(string(r.Body), "\n") {
			if data, ok := strings.CutPrefix(line, "data:"); ok {
				out = append(out, json.RawMessage(strings.TrimSpace(data)))
			}
		}
		return out
	}
	if len(bytes.TrimSpace(r.Body)) > 0 {
		out = append(out, json.RawMessage(r.Body))
	}
	return out
}
