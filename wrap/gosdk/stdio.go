package gosdk

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxDepth is the nesting go-sdk v1.8.0's message decoder accepts: a
// message nested deeper ends the whole stdio session, before any
// middleware sees it.
const maxDepth = 1000

// StdioTransport is go-sdk's stdio transport for s.Run, except that a
// message nested deeper than go-sdk's decoder accepts (1 000 levels) is
// answered with a JSON-RPC -32600 error for its id instead of ending the
// session and the server with it:
//
//	err := s.Run(ctx, gosdk.StdioTransport())
//
// Each line costs one scan of its bytes; lines go through a pipe, in
// order, to go-sdk's own decoder, and the answers share stdout under one
// lock. It starts one goroutine, which ends with stdin.
func StdioTransport() mcp.Transport { return guarded(os.Stdin, os.Stdout) }

func guarded(in io.Reader, out io.WriteCloser) mcp.Transport {
	w := &lockedWriter{w: out}
	pr, pw := io.Pipe()
	go guard(in, pw, w)
	return &mcp.IOTransport{Reader: pr, Writer: w}
}

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

func guard(in io.Reader, pw *io.PipeWriter, w io.Writer) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if depth(line) > maxDepth {
				_, _ = w.Write(tooDeep(line))
			} else if _, werr := pw.Write(line); werr != nil {
				return
			}
		}
		if err != nil {
			pw.CloseWithError(err)
			return
		}
	}
}

// depth is the deepest nesting of arrays and objects in a JSON text,
// strings skipped.
func depth(b []byte) int {
	d, most, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			d++
			most = max(most, d)
		case c == ']' || c == '}':
			d--
		}
	}
	return most
}

// tooDeep is the error answering a message too deep to decode, with the
// message's id when its top level has one (a number or a string).
func tooDeep(line []byte) []byte {
	id := topLevelID(line)
	if id == nil {
		id = []byte("null")
	}
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":`)
	b.Write(id)
	b.WriteString(`,"error":{"code":-32600,"message":"the request is nested deeper than 1000 levels; send flatter arguments"}}` + "\n")
	return b.Bytes()
}

// topLevelID returns the raw value of the "id" member at the top level of
// a JSON object, when it is a number or a string of at most 256 bytes.
func topLevelID(b []byte) []byte {
	d, inString, keyStart := 0, false, -1
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
				if d == 1 && keyStart >= 0 && string(b[keyStart:i]) == "id" {
					if v := valueAfterColon(b[i+1:]); v != nil {
						return v
					}
				}
				keyStart = -1
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			if d == 1 {
				keyStart = i + 1
			}
		case '[', '{':
			d++
		case ']', '}':
			d--
		}
	}
	return nil
}

func valueAfterColon(b []byte) []byte {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 || b[0] != ':' {
		return nil
	}
	b = bytes.TrimLeft(b[1:], " \t\r\n")
	end := 0
	switch {
	case len(b) > 0 && b[0] == '"':
		for end = 1; end < len(b) && end <= 256; end++ {
			if b[end] == '\\' {
				end++
				continue
			}
			if b[end] == '"' {
				return b[:end+1]
			}
		}
		return nil
	default:
		for end < len(b) && end <= 32 && (b[end] == '-' || b[end] == '.' || b[end] == 'e' || b[end] == 'E' || b[end] == '+' || (b[end] >= '0' && b[end] <= '9')) {
			end++
		}
		if end == 0 {
			return nil
		}
		return b[:end]
	}
}
