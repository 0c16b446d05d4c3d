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

// Transport returns t such that a message go-sdk's stream decoder would end
// the session on is answered instead, with a JSON-RPC -32600 error for its
// id, and the session goes on: a message nested deeper than go-sdk decodes
// (1 000 levels from v1.8.0 on, 10 000 before), a line longer than the
// transport's MaxLineLength (v1.8.0 on; 16 MiB when 0, none when
// negative), or a line that is no message: not JSON (a truncated or stray
// line: -32700) or an object without a "jsonrpc" member, a number, a
// string (-32600), and a batch once the session initialized with protocol
// 2025-06-18 or later (-32600 for each request in it). Everything go-sdk
// would take passes, unchanged.
// It understands go-sdk's stream transports, keeping what the server
// chose: *mcp.StdioTransport, *mcp.IOTransport (the server's own reader
// and writer, say wrapped for command logging) and an *mcp.LoggingTransport
// over either (the log shows what go-sdk reads). Every other transport
// (in-memory, streamable HTTP, which answers such a message with HTTP 400
// and goes on) is returned as it is. t is not modified.
//
// Each line costs one scan of its bytes; lines go through a pipe, in
// order, to go-sdk's own decoder, and the answers share the writer under
// one lock. Each Connect starts one goroutine, which ends with the reader.
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
// guard's.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// guard copies in to pw line by line, answering on w the lines go-sdk
// would end the session on instead of passing them.
func guard(in io.Reader, pw *io.PipeWriter, w io.Writer, maxNest, limit int) {
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
	pw             *io.PipeWriter
	w              io.Writer
	maxNest, limit int
	// initialized: an initialize request has passed; noBatches: the
	// version it asked for makes go-sdk end the session on a batch.
	initialized, noBatches bool
}

// pass writes line to pw, or its refusal to w when it is too long (long),
// nested too deep, no message, or a batch go-sdk would end the session
// on; it is false when pw is closed.
func (g *lineGuard) pass(line []byte, long bool) bool {
	most, closed := nesting(line)
	switch {
	case long:
		_, _ = g.w.Write(refusal(line, jsonrpc.CodeInvalidRequest, "the request is longer than "+strconv.Itoa(g.limit)+" bytes; send a smaller one"))
	case len(line) == 0:
	case most > g.maxNest:
		_, _ = g.w.Write(refusal(line, jsonrpc.CodeInvalidRequest, "the request is nested deeper than "+strconv.Itoa(g.maxNest)+" levels; send flatter arguments"))
	case !decodable(line, closed):
		if json.Valid(line) {
			_, _ = g.w.Write(refusal(line, jsonrpc.CodeInvalidRequest, "the line is not a JSON-RPC 2.0 message"))
		} else {
			_, _ = g.w.Write(refusal(line, jsonrpc.CodeParseError, "the line is not valid JSON"))
		}
	case g.noBatches && bytes.HasPrefix(bytes.TrimLeft(line, " \t\r\n"), []byte("[")):
		_, _ = g.w.Write(batchRefusal(line))
	default:
		if !g.initialized {
			g.initialize(line)
		}
		_, err := g.pw.Write(line)
		return err == nil
	}
	return true
}

// initialize notes the protocol version an initialize request asks for.
// go-sdk ends the session on a batch once the negotiated version is
// 2025-06-18 or later (batches left the protocol then), which it is
// unless the client asked for one of the two versions before. A session
// that never initializes (protocol 2026-07-28) is left to go-sdk.
func (g *lineGuard) initialize(line []byte) {
	// The "method" member is near the start of a line as clients write
	// it: the look stops there, and only an initialize request is decoded.
	if v, _ := topLevelValue(line, "method"); string(v) != `"initialize"` {
		return
	}
	var m struct {
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil {
		return
	}
	g.initialized = true
	g.noBatches = m.Params.ProtocolVersion != "2024-11-05" && m.Params.ProtocolVersion != "2025-03-26"
}

// batchRefusal answers a batch go-sdk would end the session on: an error
// for each request in it (a member with a method and an id), each on its
// own line, since the session's protocol has no batches; one error with a
// null id when it holds no request.
func batchRefusal(line []byte) []byte {
	const msg = "JSON-RPC batches are not part of MCP from protocol 2025-06-18 on; send each request on its own line"
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
// content): most is its deepest nesting of arrays and objects, and closed
// reports whether every string, object and array it opens is closed and
// none is closed that was not opened (the scan stops at the first that is
// not: most is then the nesting up to there).
func nesting(b []byte) (most int, closed bool) {
	d := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			if i = stringEnd(b, i+1); i == len(b) {
				return most, false
			}
		case '[', '{':
			d++
			most = max(most, d)
		case ']', '}':
			if d--; d < 0 {
				return most, false
			}
		}
	}
	return most, d == 0
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

// decodable reports whether line may be a message go-sdk's stream
// transport takes; a line it refuses ends go-sdk's session, and with it a
// stdio server: text that is not JSON (a truncated or stray line), JSON
// that is no JSON-RPC message ({}, 123). The check is cheap and never
// refuses a message go-sdk takes: white space passes; anything else must
// start an object or an array, close every string, object and array it
// opens; an array must not be empty, an object must have a top-level
// "jsonrpc" member whose value is "2.0". A line that passes yet is no
// message (a batch of non-messages) is left to go-sdk; a batch on a
// session of protocol 2025-06-18 or later is pass's to refuse.
func decodable(line []byte, closed bool) bool {
	t := bytes.TrimSpace(line)
	switch {
	case len(t) == 0:
		return true
	case t[0] != '{' && t[0] != '[':
		return false
	case !closed:
		return false
	}
	if t[0] == '[' {
		return len(bytes.TrimSpace(t[1:len(t)-1])) > 0 // go-sdk ends the session on an empty batch
	}
	v, ok := topLevelValue(t, "jsonrpc")
	// "2.0", or a string that may be it once its escapes are read.
	return ok && (string(v) == `"2.0"` || len(v) > 0 && v[0] == '"' && bytes.IndexByte(v, '\\') >= 0)
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
			if d == 1 && string(b[i+1:end]) == key && bytes.HasPrefix(bytes.TrimLeft(rest, " \t\r\n"), []byte(":")) {
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
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 || b[0] != ':' {
		return nil
	}
	return idValue(bytes.TrimLeft(b[1:], " \t\r\n"))
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
