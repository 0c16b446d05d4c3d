package observe_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
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

// TestBufferedLoggerFlushes: with WithLogBuffer a line below ERROR is not
// written on the caller's path, and Observer.Flush (what the fatal path
// runs before exiting) writes it out.
func TestBufferedLoggerFlushes(t *testing.T) {
	var out syncBuffer
	l := observe.NewLogger(observe.WithLogOutput(&out), observe.WithLogFormat("json"), observe.WithLogBuffer())
	o := observe.New(observe.WithLogger(l), observe.WithoutTracing(), observe.WithoutMetrics())
	o.Log(t.Context(), slog.LevelWarn, "fatal: config missing")
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

// A line at ERROR waited for the 50 ms flush like any other, and was lost
// when the process exited right after it (46 of 47 lines of a server that
// exits on SIGTERM by itself). It is written, after the lines held before
// it, before the call that logs it returns.
func TestBufferedLoggerWritesErrorsThrough(t *testing.T) {
	for _, format := range []string{"json", "text"} {
		t.Run(format, func(t *testing.T) {
			var out syncBuffer
			l := observe.NewLogger(observe.WithLogOutput(&out), observe.WithLogFormat(format), observe.WithLogBuffer())
			l.Info("held")
			if out.String() != "" {
				t.Fatal("the INFO line was written on the caller's path")
			}
			l.With("tool", "get_forecast").Error("upstream gone", "stack", "main.main()\n\tmain.go:1")
			got := out.String()
			held, failed := strings.Index(got, "held"), strings.Index(got, "upstream gone")
			if held < 0 || failed < held || !strings.Contains(got, "get_forecast") {
				t.Fatalf("want the held line, then the error line with its attribute, written when Error returns; got %q", got)
			}
		})
	}
}

// exitAfterError is the child process of TestErrorLineSurvivesExit: it logs
// through a buffered logger and exits at once, with no FlushLogger.
const exitAfterError = "MCPWRAP_TEST_EXIT_AFTER_ERROR"

// The process that logs an error and calls os.Exit at once (no FlushLogger)
// leaves the error line, and the lines before it, on its stderr.
func TestErrorLineSurvivesExit(t *testing.T) {
	if os.Getenv(exitAfterError) == "1" {
		l := observe.NewLogger(observe.WithLogBuffer(), observe.WithLogFormat("json"))
		for i := range 3 {
			l.Info("before", "i", i)
		}
		l.Error("config missing", "key", "API_URL")
		os.Exit(3)
	}
	if testing.Short() {
		t.Skip("runs a child process")
	}
	for run := range 10 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestErrorLineSurvivesExit$")
		cmd.Env = append(os.Environ(), exitAfterError+"=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			t.Fatalf("run %d: want exit status 3, got %v\n%s", run, err, stderr.Bytes())
		}
		var msgs []string
		for l := range bytes.SplitSeq(bytes.TrimSpace(stderr.Bytes()), []byte("\n")) {
			var m struct {
				Msg string `json:"msg"`
			}
			if json.Unmarshal(l, &m) == nil {
				msgs = append(msgs, m.Msg)
			}
		}
		if want := "before before before config missing"; strings.Join(msgs, " ") != want {
			t.Fatalf("run %d: want the lines %q in order, got %q from\n%s", run, want, msgs, stderr.Bytes())
		}
	}
}
