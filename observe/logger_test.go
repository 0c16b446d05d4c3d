package observe_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/mcpwrap/mcpwrap/observe"
)

func TestNewLogger(t *testing.T) {
	var buf bytes.Buffer
	t.Setenv(observe.EnvLogLevel, "warn")
	l := observe.NewLogger(observe.WithLogOutput(&buf))
	l.Info("hidden")
	l.Warn("shown", "k", 1)
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil || m["msg"] != "shown" {
		t.Fatalf("want one JSON line at warn, got %q (%v)", buf.String(), err)
	}
	buf.Reset()
	t.Setenv(observe.EnvLogFormat, "text")
	l = observe.NewLogger(observe.WithLogOutput(&buf), observe.WithLogLevel(slog.LevelDebug))
	l.Debug("colourful", "k", 1)
	if json.Valid(buf.Bytes()) || !strings.Contains(buf.String(), "colourful") || !strings.Contains(buf.String(), "k=1") {
		t.Fatalf("want tint text, got %q", buf.String())
	}
}

// syncBuffer is a bytes.Buffer safe for the buffered logger's writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestBufferedLoggerFlushes: with WithLogBuffer a line is not written on
// the caller's path, and Observer.Flush (what the fatal path runs before
// exiting) writes it out.
func TestBufferedLoggerFlushes(t *testing.T) {
	var out syncBuffer
	l := observe.NewLogger(observe.WithLogOutput(&out), observe.WithLogFormat("json"), observe.WithLogBuffer())
	o := observe.New(observe.WithLogger(l), observe.WithoutTracing(), observe.WithoutMetrics())
	o.Log(t.Context(), slog.LevelError, "fatal: config missing")
	if out.String() != "" {
		t.Fatal("the buffered line was written on the caller's path")
	}
	if err := o.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "fatal: config missing") {
		t.Fatalf("Flush did not write the line: %q", out.String())
	}
}
