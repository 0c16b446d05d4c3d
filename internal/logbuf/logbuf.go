// Package logbuf is a concurrency-safe buffer of JSON log lines for tests.
package logbuf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Buffer collects what a slog.JSONHandler writes.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write implements io.Writer.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Gate is a Buffer whose writes block until Open is closed, like a stderr
// pipe its reader stopped reading.
type Gate struct {
	Open chan struct{}
	Buffer
}

// NewGate returns a closed Gate.
func NewGate() *Gate { return &Gate{Open: make(chan struct{})} }

// Write waits for Open, then writes.
func (g *Gate) Write(p []byte) (int, error) {
	<-g.Open
	return g.Buffer.Write(p)
}

// Logger returns a JSON logger at debug level writing to b.
func (b *Buffer) Logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// Lines parses every line as a JSON object; a line that does not parse is an
// error, since every log line must be JSON.
func (b *Buffer) Lines() ([]map[string]any, error) {
	var out []map[string]any
	for i, line := range bytes.Split([]byte(b.String()), []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("line %d is not JSON: %w: %s", i+1, err, line)
		}
		out = append(out, m)
	}
	return out, nil
}

// Find returns the lines whose key equals value.
func (b *Buffer) Find(key, value string) ([]map[string]any, error) {
	lines, err := b.Lines()
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for _, l := range lines {
		if s, _ := l[key].(string); s == value {
			out = append(out, l)
		}
	}
	return out, nil
}

// Calls returns the lines of the calls of tool: those with an outcome, not
// their events (a late end, a retry) logged under the same tool.
func (b *Buffer) Calls(tool string) ([]map[string]any, error) {
	lines, err := b.Find("tool", tool)
	return slices.DeleteFunc(lines, func(l map[string]any) bool { return l["outcome"] == nil }), err
}

// volatile matches the members of a line that differ between two runs of
// the same calls: the time, the duration, the call id, the session and a
// panic's stack.
var volatile = regexp.MustCompile(`"(time|duration_ms|call_id|session_id)":("[^"]*"|[0-9.e+-]+)|"stack":"(\\.|[^"\\])*"`)

// Stable returns everything written, byte for byte, with the members that
// differ between two runs of the same calls emptied, and an error when a
// line is not JSON: two handlers' lines for the same calls compare equal
// only when they wrote the same bytes.
func (b *Buffer) Stable() (string, error) {
	if _, err := b.Lines(); err != nil {
		return "", err
	}
	return volatile.ReplaceAllStringFunc(b.String(), func(m string) string {
		return m[:strings.Index(m, `":`)+2] // the key, without its value
	}), nil
}
