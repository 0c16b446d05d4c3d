package obs_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/obs"
)

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

// gate is an output that blocks every write until it is opened.
type gate struct {
	open chan struct{}
	syncBuffer
}

func (g *gate) Write(p []byte) (int, error) {
	<-g.open
	return g.syncBuffer.Write(p)
}

// TestBufferedLoggerFlushes: with WithLogBuffer a line below ERROR is not
// written on the caller's path (it returns while the output is stuck), and
// Observer.Flush (what the fatal path runs before exiting) writes out every
// line held.
func TestBufferedLoggerFlushes(t *testing.T) {
	out := &gate{open: make(chan struct{})}
	l := obs.NewLogger(obs.WithLogOutput(out), obs.WithLogFormat("json"), obs.WithLogBuffer())
	o := obs.New(obs.WithLogger(l), obs.WithoutTracing(), obs.WithoutMetrics())
	logged := make(chan struct{})
	go func() {
		o.Log(t.Context(), slog.LevelWarn, "first")
		o.Log(t.Context(), slog.LevelWarn, "fatal: config missing")
		close(logged)
	}()
	select {
	case <-logged:
	case <-time.After(30 * time.Second):
		t.Fatal("logging waited for the output")
	}
	close(out.open)
	if err := o.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "first") || !strings.Contains(got, "fatal: config missing") {
		t.Fatalf("Flush did not write the lines: %q", got)
	}
}
