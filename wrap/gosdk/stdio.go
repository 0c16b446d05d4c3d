package gosdk

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"

	"github.com/mcpwrap/mcpwrap/internal/policy"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// The nesting go-sdk's stream transports decode: from v1.8.0 on (the
// versions with MaxLineLength) 1 000 levels, before that Go's decoder's
// 10 000. A message nested deeper ends the session, before any middleware.
const (
	maxDepth       = 1000
	maxDepthBefore = 10000
)

// defaultMaxLine is go-sdk's DefaultMaxLineLength (v1.8.0), the longest
// line its stream transports take when MaxLineLength is 0: a longer one
// ends the session. Before v1.8.0 lines had no limit.
const defaultMaxLine = 16 << 20

// jsonSpace is JSON's white space (bytes.TrimSpace's is Unicode's).
const jsonSpace = " \t\r\n"

// idHead is how much of a line longer than the limit is kept to find its
// id: the rest is read and dropped.
const idHead = 64 << 10

// Run attaches w to s (Attach) and runs s on t (s.Run) through Transport:
// the one line of a stdio server, in place of s.Run(ctx, t):
//
//	err := gosdk.Run(ctx, s, w, &mcp.StdioTransport{})
//
// Do not call Attach on s as well: the chain would run twice. A nil w
// means wrap.New().
func Run(ctx context.Context, s *mcp.Server, w *wrap.Wrapper, t mcp.Transport) error {
	Attach(s, w)
	// Over stdio the caller is whoever started the process: an
	// authorization policy grants it Policy.Local.
	ctx = authz.NewContext(ctx, policy.ProcessOwner())
	return s.Run(ctx, Transport(t))
}

// Transport returns t such that a line go-sdk's stream decoder would end
// the session on is answered instead, with a JSON-RPC error for its id
// (-32700 when it is not one JSON value, -32600 otherwise; for a batch,
// one for each request in it), and the session goes on: a message nested
// deeper than go-sdk decodes (1 000 levels from v1.8.0 on, 10 000
// before), a line longer than the transport's MaxLineLength (v1.8.0 on;
// 16 MiB when 0, none when negative), a line that is not one JSON value,
// JSON go-sdk's decoder does not take as a message ({}, 123, a method
// that is no string, an id that is no string or number), a batch once
// the session initialized with protocol 2025-06-18 or later, and on
// earlier protocols a batch with a member that is no message or a
// request id twice or of a batch not yet answered. Everything else passes
// as go-sdk reads it: a message with the white space around it trimmed
// (go-sdk ends the session on a message followed by a space), a batch
// with its notifications on lines of their own ahead of it (go-sdk waits
// for an answer to them, and so never wrote the batch's answers).
//
// It understands go-sdk's stream transports, keeping what the server
// chose: *mcp.StdioTransport, *mcp.IOTransport (the server's own reader
// and writer, say wrapped for command logging) and an *mcp.LoggingTransport
// over either (the log shows what go-sdk reads). Every other transport
// (in-memory, streamable HTTP, which answers such a message with HTTP 400
// and goes on) is returned as it is. t is not modified.
//
// Each line costs one scan of its bytes and one pass of a JSON decoder
// over it (on a 1 MiB line a tenth to under a third of what go-sdk's own
// reading of it costs: BenchmarkGuard, BenchmarkGoSDKRead); lines go
// through a pipe, in order, to go-sdk's own decoder, and the answers
// share the writer under one lock. Each Connect starts one goroutine,
// which ends with the reader.
func Transport(t mcp.Transport) mcp.Transport {
	switch tt := t.(type) {
	case *mcp.StdioTransport:
		if tt != nil {
			return newGuarded(tt, os.Stdin, nopCloser{os.Stdout})
		}
	case *mcp.IOTransport:
		if tt != nil {
			return newGuarded(tt, tt.Reader, tt.Writer)
		}
	case *mcp.LoggingTransport:
		if tt != nil {
			return &mcp.LoggingTransport{Transport: Transport(tt.Transport), Writer: tt.Writer}
		}
	}
	return t
}

// newGuarded guards a go-sdk stream transport t over in and out with the
// limits of the go-sdk version in the build. MaxLineLength (a field from
// v1.8.0 on, with the 1 000-level depth limit) is read by name, so that
// the adapter builds on versions without it.
func newGuarded(t any, in io.Reader, out io.WriteCloser) *guardedTransport {
	f := reflect.ValueOf(t).Elem().FieldByName("MaxLineLength")
	if !f.IsValid() || f.Kind() != reflect.Int {
		return &guardedTransport{in: in, out: out, depth: maxDepthBefore, limit: -1}
	}
	limit := int(f.Int())
	if limit == 0 {
		limit = defaultMaxLine
	}
	return &guardedTransport{in: in, out: out, depth: maxDepth, limit: limit}
}

// guardedTransport is a stream transport whose lines pass the guard before
// go-sdk's decoder reads them.
type guardedTransport struct {
	in    io.Reader
	out   io.WriteCloser
	depth int // the deepest nesting passed on
	limit int // the longest line passed on; < 0: none
}

func (g *guardedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	if g.in == nil || g.out == nil {
		return nil, errors.New("gosdk: Transport: the transport has no reader or writer")
	}
	w := &lockedWriter{w: g.out}
	pr, pw := io.Pipe()
	go guard(g.in, pw, w, g.depth, g.limit)
	inner := &mcp.IOTransport{Reader: readCloser{pr, g.in}, Writer: w}
	// The guard bounds lines; go-sdk's own bound (v1.8.0) would end the
	// session on what the guard lets through under a larger limit.
	if f := reflect.ValueOf(inner).Elem().FieldByName("MaxLineLength"); f.IsValid() && f.CanSet() && f.Kind() == reflect.Int {
		f.SetInt(-1)
	}
	return inner.Connect(ctx)
}

// readCloser is the pipe go-sdk reads, whose Close also closes the
// server's reader, as go-sdk's own transports do.
type readCloser struct {
	*io.PipeReader
	in io.Reader
}

func (r readCloser) Close() error {
	err := r.PipeReader.Close()
	if c, ok := r.in.(io.Closer); ok {
		err = errors.Join(err, c.Close())
	}
	return err
}

// nopCloser is stdout as go-sdk's StdioTransport uses it: closing the
// session does not close it.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// lockedWriter serialises go-sdk's writes (one Write a message) with the
// guard's, and keeps the request ids of the batches passed on and not yet
// answered: go-sdk ends the session on a batch holding one of them.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser

	openMu sync.Mutex
	open   map[jsonrpc.ID]bool
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	if len(p) > 0 && p[0] == '[' {
		l.answered(p)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// openBatch notes ids, a batch's request ids, as open; it is false, and
// notes none, when one of them is open already.
func (l *lockedWriter) openBatch(ids []jsonrpc.ID) bool {
	l.openMu.Lock()
	defer l.openMu.Unlock()
	for _, id := range ids {
		if l.open[id] {
			return false
		}
	}
	if l.open == nil {
		l.open = make(map[jsonrpc.ID]bool)
	}
	for _, id := range ids {
		l.open[id] = true
	}
	return true
}

// answered closes the ids that p, a batch of answers go-sdk writes, answers.
func (l *lockedWriter) answered(p []byte) {
	l.openMu.Lock()
	defer l.openMu.Unlock()
	if len(l.open) == 0 {
		return
	}
	var answers []struct {
		ID     any             `json:"id"`
		Method json.RawMessage `json:"method"`
	}
	_ = segjson.Unmarshal(p, &answers)
	for _, a := range answers {
		if id, err := jsonrpc.MakeID(a.ID); err == nil && a.Method == nil {
			delete(l.open, id)
		}
	}
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// guard copies in to pw line by line, answering on w the lines go-sdk
// would end the session on instead of passing them.
func guard(in io.Reader, pw *io.PipeWriter, w *lockedWriter, maxNest, limit int) {
	r := bufio.NewReaderSize(in, 64<<10)
	g := lineGuard{pw: pw, w: w, maxNest: maxNest, limit: limit}
	var line []byte
	for {
		var err error
		var long bool
		if cap(line) > 4<<20 {
			line = nil // a long line's buffer is not kept
		}
		line, long, err = readLine(r, line[:0], limit)
		if !g.pass(line, long) {
			return
		}
		if err != nil {
			pw.CloseWithError(err)
			return
		}
	}
}

// lineGuard is what guard knows of its session: its limits, and whether
// go-sdk will end it on a batch.
type lineGuard struct {
	pw             io.Writer
	w              *lockedWriter
	maxNest, limit int
	// initialized: an initialize request has passed; noBatches: the
	// version it asked for makes go-sdk end the session on a batch.
	initialized, noBatches bool
}

// pass writes line to pw, or its refusal to w when it is too long (long),
// nested too deep, no message, or a batch go-sdk would end the session
// on; it is false when pw is closed.
func (g *lineGuard) pass(line []byte, long bool) bool {
	most := nesting(line)
	switch {
	case long:
		_, _ = g.w.Write(refusal(line, jsonrpc.CodeInvalidRequest, "the request is longer than "+strconv.Itoa(g.limit)+" bytes; send a smaller one"))
	case len(line) == 0:
	case most > g.maxNest:
		_, _ = g.w.Write(refusal(line, jsonrpc.CodeInvalidRequest, "the request is nested deeper than "+strconv.Itoa(g.maxNest)+" levels; send flatter arguments"))
	default:
		return g.message(line)
	}
	return true
}

// message passes line the way go-sdk reads it, or answers it. go-sdk's
// stream decoder reads one JSON value and ends the session on anything
// else: text that is not one JSON value (a truncated line, a trailing
// comma, two values), a value followed by anything but its newline (a
// trailing space), and a value its message decoder does not take ({},
// 123, a method that is no string, an id that is no string or number).
// Such a line gets -32700 (not one JSON value) or -32600, with its id
// when its top level shows one; a message passes with the white space
// around it trimmed; a batch is batch's. Lines of white space pass.
func (g *lineGuard) message(line []byte) bool {
	t := bytes.Trim(line, jsonSpace)
	if len(t) == 0 {
		return g.write(line)
	}
	if t[0] == '[' {
		var members []json.RawMessage
		if parse(t, &members) {
			return g.batch(line, members)
		}
		return g.refuse(line, t)
	}
	var h head
	if !parse(t, &h) || !h.message() {
		return g.refuse(line, t)
	}
	if !g.initialized && h.method == "initialize" {
		g.initialize(t)
	}
	return g.write(append(t, '\n'))
}

// refuse answers line (t, trimmed), which go-sdk would end the session
// on: -32700 when it is not one JSON value, -32600 when it is no message.
func (g *lineGuard) refuse(line, t []byte) bool {
	if segjson.Valid(t) {
		_, _ = g.w.Write(refusal(line, jsonrpc.CodeInvalidRequest, "the line is not a JSON-RPC 2.0 message"))
	} else {
		_, _ = g.w.Write(refusal(line, jsonrpc.CodeParseError, "the line is not valid JSON"))
	}
	return true
}

// write passes b to go-sdk; it is false when go-sdk stopped reading.
func (g *lineGuard) write(b []byte) bool {
	_, err := g.pw.Write(b)
	return err == nil
}

// parse decodes t into v as go-sdk's message decoder does, and reports
// whether it did and t holds that one JSON value alone.
func parse(t []byte, v any) bool {
	rest, err := segjson.Parse(t, v, segjson.DontMatchCaseInsensitiveStructFields)
	return err == nil && len(bytes.Trim(rest, jsonSpace)) == 0
}

// head is what go-sdk's message decoder (jsonrpc.DecodeMessage) reads of
// a message but its params and result: decoding into it fails where that
// decoder's does, and message applies its rules.
type head struct {
	VersionTag string          `json:"jsonrpc"`
	ID         any             `json:"id,omitempty"`
	Method     json.RawMessage `json:"method"`
	Error      *jsonrpc.Error  `json:"error,omitempty"`

	id     jsonrpc.ID // ID read, by message
	method string     // Method read, by message
}

// message reports whether jsonrpc.DecodeMessage takes h: "jsonrpc" is
// "2.0", the id a string, a number or none (read into h.id), and a method
// (a string, read into h.method) or, for an answer, an id.
func (h *head) message() bool {
	var err error
	if h.id, err = jsonrpc.MakeID(h.ID); h.VersionTag != "2.0" || err != nil {
		return false
	}
	if len(h.Method) == 0 {
		return h.id.IsValid()
	}
	return segjson.Unmarshal(h.Method, &h.method) == nil
}

// initialize notes the protocol version an initialize request (t) asks
// for. go-sdk ends the session on a batch once the negotiated version is
// 2025-06-18 or later (batches left the protocol then), which it is
// unless the client asked for one of the two versions before. A session
// that never initializes (protocol 2026-07-28) is left to go-sdk.
func (g *lineGuard) initialize(t []byte) {
	var m struct {
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if json.Unmarshal(t, &m) != nil {
		return
	}
	g.initialized = true
	g.noBatches = m.Params.ProtocolVersion != "2024-11-05" && m.Params.ProtocolVersion != "2025-03-26"
}

// batch passes a JSON-RPC batch the way go-sdk answers it, or refuses it.
// go-sdk ends the session on a batch once the protocol has none, on a
// member that is no message, on a request id twice; and it tracks a
// notification of a batch as a request no answer resolves, so the
// batch's answers are never written, and the session ends on the next
// batch with a notification. So the notifications pass on lines of their
// own, then the batch of the rest; each request of a batch go-sdk would
// end the session on is answered with an error for its id.
func (g *lineGuard) batch(line []byte, members []json.RawMessage) bool {
	if g.noBatches {
		_, _ = g.w.Write(batchRefusal(line, "JSON-RPC batches are not part of MCP from protocol 2025-06-18 on; send each request on its own line"))
		return true
	}
	split, ids, ok := splitBatch(members)
	if !ok || !g.w.openBatch(ids) {
		_, _ = g.w.Write(batchRefusal(line, "the batch is empty, or holds a member that is no JSON-RPC 2.0 message, or a request id twice or of a batch not answered yet; none of it was run"))
		return true
	}
	return g.write(split)
}

// splitBatch checks the members of a batch as go-sdk does and writes them
// again: the notifications each on a line of their own, then the batch of
// the other members (when any); ids are its requests' ids. ok is false
// when go-sdk would end the session on it: no member, a member no
// message, a request id twice.
func splitBatch(members []json.RawMessage) (split []byte, ids []jsonrpc.ID, ok bool) {
	var rest [][]byte
	seen := make(map[jsonrpc.ID]bool)
	for _, m := range members {
		var h head
		if !parse(m, &h) || !h.message() {
			return nil, nil, false
		}
		switch request := len(h.Method) > 0; {
		case request && !h.id.IsValid(): // a notification
			split = append(append(split, m...), '\n')
			continue
		case request && seen[h.id]:
			return nil, nil, false
		case request:
			seen[h.id] = true
			ids = append(ids, h.id)
		}
		rest = append(rest, m)
	}
	if len(rest) > 0 {
		split = append(split, '[')
		split = append(split, bytes.Join(rest, []byte(","))...)
		split = append(split, "]\n"...)
	}
	return split, ids, len(members) > 0
}

// batchRefusal answers a batch go-sdk would end the session on: an error
// (msg) for each request in it (a member with a method and an id), each
// on its own line; one error with a null id when it holds no request.
func batchRefusal(line []byte, msg string) []byte {
	var msgs []struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(line, &msgs)
	var b []byte
	for _, m := range msgs {
		if id := idValue(m.ID); id != nil && m.Method != "" {
			b = append(b, errorLine(id, jsonrpc.CodeInvalidRequest, msg)...)
		}
	}
	if b == nil {
		b = errorLine(nil, jsonrpc.CodeInvalidRequest, msg)
	}
	return b
}

// readLine appends the next line of r, its newline included, to buf. A
// line longer than limit (when limit > 0) is read to its end but only its
// first idHead bytes are kept, and long is set.
func readLine(r *bufio.Reader, buf []byte, limit int) (line []byte, long bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !long {
			if limit > 0 && len(buf)+len(chunk) > limit {
				long = true
				buf = append(buf, chunk[:min(len(chunk), max(idHead-len(buf), 0))]...)
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err != bufio.ErrBufferFull {
			return buf, long, err
		}
	}
}

// nesting scans a JSON text once, strings skipped (to their closing quote
// with bytes.IndexByte, the bulk of a large message being string
// content): most is its deepest nesting of arrays and objects. The scan
// stops at a string not closed or a bracket closed that was not opened,
// where decoding stops too: most is then the nesting up to there.
func nesting(b []byte) (most int) {
	d := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			if i = stringEnd(b, i+1); i == len(b) {
				return most
			}
		case '[', '{':
			d++
			most = max(most, d)
		case ']', '}':
			if d--; d < 0 {
				return most
			}
		}
	}
	return most
}

// stringEnd returns the index of the quote closing the string whose
// content starts at i, or len(b) when it is not closed.
func stringEnd(b []byte, i int) int {
	for {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return len(b)
		}
		q += i
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for k := q - 1; k >= i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q
		}
		i = q + 1
	}
}

// topLevelValue finds the member key at the top level of the object b
// (usually its first: the scan stops there): ok reports whether it is
// there, v is its value when a number or a short string (valueAfterColon).
func topLevelValue(b []byte, key string) (v []byte, ok bool) {
	d := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			end := stringEnd(b, i+1)
			rest := b[min(end+1, len(b)):]
			if d == 1 && string(b[i+1:end]) == key && bytes.HasPrefix(bytes.TrimLeft(rest, jsonSpace), []byte(":")) {
				return valueAfterColon(rest), true
			}
			i = end
		case '[', '{':
			d++
		case ']', '}':
			d--
		}
	}
	return nil, false
}

// refusal is the error (code) answering a message go-sdk cannot take, with
// the message's id when its top level has one (a number or a string).
func refusal(line []byte, code int, msg string) []byte {
	id, _ := topLevelValue(line, "id")
	return errorLine(id, code, msg)
}

// errorLine is a JSON-RPC error (code, msg) for id (null when nil), with
// its newline.
func errorLine(id []byte, code int, msg string) []byte {
	if id == nil {
		id = []byte("null")
	}
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	b.WriteString(`,"error":{"code":`)
	b.WriteString(strconv.Itoa(code))
	b.WriteString(`,"message":`)
	b.WriteString(strconv.Quote(msg))
	b.WriteString("}}\n")
	return b.Bytes()
}

// valueAfterColon is the id value after the ':' that starts b (idValue).
func valueAfterColon(b []byte) []byte {
	b = bytes.TrimLeft(b, jsonSpace)
	if len(b) == 0 || b[0] != ':' {
		return nil
	}
	return idValue(bytes.TrimLeft(b[1:], jsonSpace))
}

// idValue is the id b starts with: a string of at most 256 bytes, or a
// number of at most 32; nil for anything else.
func idValue(b []byte) []byte {
	if len(b) > 0 && b[0] == '"' {
		return quotedID(b)
	}
	return numberID(b)
}

// quotedID is the JSON string b starts with, when it ends within 256 bytes.
func quotedID(b []byte) []byte {
	for end := 1; end < len(b) && end <= 256; end++ {
		switch b[end] {
		case '\\':
			end++
		case '"':
			return b[:end+1]
		}
	}
	return nil
}

// numberID is the number b starts with, at most 32 bytes of it.
func numberID(b []byte) []byte {
	end := 0
	for end < len(b) && end <= 32 && strings.IndexByte("-.eE+0123456789", b[end]) >= 0 {
		end++
	}
	if end == 0 {
		return nil
	}
	return b[:end]
}
