// Package stdiodrain sits between mcp-go's stdio server and stdin and
// stdout (mcpgo.ServeStdio): it holds the end of stdin back until the
// requests read before it are answered, and tells the timeout layer when
// each tool call was read.
package stdiodrain

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/jsonrpcid"
)

// timeout bounds how long ServeStdio, once the client has closed
// stdin, waits for the answers to the requests it read before.
const timeout = 10 * time.Second

// Drain sits between mcp-go's stdio server and stdin and stdout, and holds
// the end of stdin back from it until every request read before the end has
// been answered (at most timeout, or until ctx ends). mcp-go
// v1.2.1's StdioServer.Listen, on the end of its input, cancels the context
// of every request and stops its tool-call workers, which may leave queued
// calls unanswered: a client that writes its requests and closes stdin at
// once got answers to some of them.
//
// It matches answers to requests by id: a request is a line of stdin with
// a method and a string or number id; an answer is a write to stdout (one
// message per write, as mcp-go writes them) with that id and a result or an
// error. subscriptions/listen is never waited for (it is answered when its
// context ends), nor a request the client cancelled.
type Drain struct {
	in  io.Reader
	out io.Writer
	ctx context.Context // ends on SIGTERM or SIGINT

	// Read's own: mcp-go reads from one goroutine at a time.
	atEnd, held bool

	mu      sync.Mutex
	partial []byte              // a line of stdin read in part
	pending map[string]struct{} // ids of the requests read and not answered
	drained chan struct{}       // closed when pending empties after the end
	// The tool calls read and not answered, by id and, once mcp-go's
	// worker has taken one up (its before-call hook), by the Done channel
	// of its context: when each was read, for the timeout layer.
	reads   map[string]*stdioRead
	started map[<-chan struct{}]*stdioRead
}

// stdioRead is a tool call the drain read.
type stdioRead struct {
	at   time.Time
	done <-chan struct{} // of the call's context; nil until the hook ran
}

// New is the drain of in and out; ctx ends on SIGTERM or SIGINT.
func New(ctx context.Context, in io.Reader, out io.Writer) *Drain {
	return &Drain{in: in, out: out, ctx: ctx, pending: map[string]struct{}{},
		reads: map[string]*stdioRead{}, started: map[<-chan struct{}]*stdioRead{}}
}

// drainKey is the context key of the drain of ServeStdio, in the context
// mcp-go gives every request it reads from it.
type drainKey struct{}

// WithDrain is ctx carrying d, for mcp-go's StdioServer.Listen: every
// request's context then does.
func WithDrain(ctx context.Context, d *Drain) context.Context {
	return context.WithValue(ctx, drainKey{}, d)
}

// began is the before-call hook's part: it ties the call with JSON-RPC id
// id to its context, whose Done channel is its own (mcp-go gives each
// request a cancel of its own).
func (d *Drain) began(ctx context.Context, id any) {
	raw, err := json.Marshal(id)
	if err != nil {
		return
	}
	k, ok := jsonrpcid.ParseAsFloat(raw)
	done := ctx.Done()
	if !ok || done == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if r := d.reads[k]; r != nil {
		r.done = done
		d.started[done] = r
	}
}

// WithRead tells the timeout layer when the drain read the call of
// ctx, so that its timeout counts from then: mcp-go's stdio server hands
// tool calls to a few workers (five by default) through a queue, and a
// call can wait there for longer than its timeout.
func WithRead(ctx context.Context) context.Context {
	d, ok := ctx.Value(drainKey{}).(*Drain)
	if !ok {
		return ctx
	}
	d.mu.Lock()
	r := d.started[ctx.Done()]
	d.mu.Unlock()
	if r == nil {
		return ctx
	}
	return call.WithReceived(ctx, r.at)
}

// Began is the before-call hook that feeds WithRead.
func Began(ctx context.Context, id any, _ *mcp.CallToolRequest) {
	if d, ok := ctx.Value(drainKey{}).(*Drain); ok {
		d.began(ctx, id)
	}
}

// Read passes stdin on, noting each request; at its end it waits for the
// answers first, once.
func (d *Drain) Read(p []byte) (int, error) {
	if d.atEnd {
		d.hold()
		return 0, io.EOF
	}
	n, err := d.in.Read(p)
	if n > 0 {
		d.see(p[:n])
	}
	if err != io.EOF {
		return n, err
	}
	d.atEnd = true
	if n > 0 {
		return n, nil // the data first; the end on the next read
	}
	d.hold()
	return 0, io.EOF
}

// hold waits, the first time it is called, until every request read has
// been answered, timeout has passed, or ctx ends.
func (d *Drain) hold() {
	if d.held {
		return
	}
	d.held = true
	d.mu.Lock()
	if len(d.pending) == 0 {
		d.mu.Unlock()
		return
	}
	d.drained = make(chan struct{})
	drained := d.drained
	d.mu.Unlock()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-drained:
	case <-t.C:
	case <-d.ctx.Done():
	}
}

// Write passes a message on to stdout, and crosses off the request it
// answers.
func (d *Drain) Write(p []byte) (int, error) {
	n, err := d.out.Write(p)
	if k, ok := answerKey(p); ok {
		d.done(k) // also when the write failed: it is not written again
	}
	return n, err
}

// see notes the requests in the complete lines of b.
func (d *Drain) see(b []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.partial) > 0 {
		d.partial = append(d.partial, b...)
		b = d.partial
	}
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		d.request(b[:i])
		b = b[i+1:]
	}
	d.partial = append(d.partial[:0], b...)
}

// request notes a line of stdin; d.mu is held.
func (d *Drain) request(line []byte) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	at := time.Now()
	if json.Unmarshal(line, &m) != nil || m.Method == nil {
		return
	}
	switch *m.Method {
	case string(mcp.MethodToolsCall):
		if k, ok := jsonrpcid.ParseAsFloat(m.ID); ok {
			d.reads[k] = &stdioRead{at: at}
		}
	case string(mcp.MethodSubscriptionsListen):
		return
	case string(mcp.MethodNotificationCancelled):
		d.cancelled(m.Params)
		return
	}
	if k, ok := jsonrpcid.ParseAsFloat(m.ID); ok {
		d.pending[k] = struct{}{}
	}
}

// cancelled takes the request a notifications/cancelled with params names
// as answered: the server sends no answer to it.
func (d *Drain) cancelled(params json.RawMessage) {
	var c struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &c) != nil {
		return
	}
	if k, ok := jsonrpcid.ParseAsFloat(c.RequestID); ok {
		d.answered(k)
	}
}

func (d *Drain) done(k string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.answered(k)
}

// answered crosses k off; d.mu is held.
func (d *Drain) answered(k string) {
	if r := d.reads[k]; r != nil {
		delete(d.reads, k)
		if r.done != nil {
			delete(d.started, r.done)
		}
	}
	delete(d.pending, k)
	if len(d.pending) == 0 && d.drained != nil {
		close(d.drained)
		d.drained = nil
	}
}

// answerKey returns the key of the id that msg, a JSON-RPC answer, carries.
// It reads the message only up to its id and its result or error member
// (the id comes first in what mcp-go writes), so that a large result is
// not scanned.
func answerKey(msg []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	var id json.RawMessage
	answer := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		switch t {
		case "method":
			return "", false // a request or a notification of the server's
		case "id":
			if dec.Decode(&id) != nil {
				return "", false
			}
		case "result", "error":
			answer = true
			if id == nil && !skipValue(dec) {
				return "", false
			}
		default:
			if !skipValue(dec) {
				return "", false
			}
		}
		if answer && id != nil {
			return jsonrpcid.ParseAsFloat(id)
		}
	}
	return "", false
}

// skipValue reads past the next value of dec; false if it cannot.
func skipValue(dec *json.Decoder) bool {
	var skip json.RawMessage
	return dec.Decode(&skip) == nil
}
