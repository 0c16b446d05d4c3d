package obs_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obs"
)

// TestBufferedLoggerFlushes: with WithLogBuffer a line below ERROR is not
// written on the caller's path (it returns while the output is stuck), and
// Observer.Flush (what the fatal path runs before exiting) writes out every
// line held.
func TestBufferedLoggerFlushes(t *testing.T) {
	out := logbuf.NewGate()
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
	close(out.Open)
	if err := o.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); !strings.Contains(got, "first") || !strings.Contains(got, "fatal: config missing") {
		t.Fatalf("Flush did not write the lines: %q", got)
	}
}
