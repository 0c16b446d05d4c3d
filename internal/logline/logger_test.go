package logline_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/logline"
)

func TestNewLogger(t *testing.T) {
	var buf bytes.Buffer
	t.Setenv(logline.EnvLogLevel, "warn")
	l := logline.New(logline.Config{Output: &buf})
	l.Info("hidden")
	l.Warn("shown", "k", 1)
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil || m["msg"] != "shown" {
		t.Fatalf("want one JSON line at warn, got %q (%v)", buf.String(), err)
	}
	buf.Reset()
	t.Setenv(logline.EnvLogFormat, "text")
	l = logline.New(logline.Config{Output: &buf, Level: slog.LevelDebug})
	l.Debug("colourful", "k", 1)
	if json.Valid(buf.Bytes()) || !strings.Contains(buf.String(), "colourful") || !strings.Contains(buf.String(), "k=1") {
		t.Fatalf("want tint text, got %q", buf.String())
	}
}

// A line at ERROR waited for the 50 ms flush like any other, and was lost
// when the process exited right after it (46 of 47 lines of a server that
// exits on SIGTERM by itself). It is written, after the lines held before
// it, before the call that logs it returns.
func TestBufferedLoggerWritesErrorsThrough(t *testing.T) {
	for _, format := range []string{"json", "text"} {
		t.Run(format, func(t *testing.T) {
			var out logbuf.Buffer
			l := logline.New(logline.Config{Output: &out, Format: format, Buffer: true})
			l.Info("held")
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
		l := logline.New(logline.Config{Output: os.Stderr, Buffer: true, Format: "json"})
		for i := range 3 {
			l.Info("before", "i", i)
		}
		l.Error("config missing", "key", "API_URL")
		os.Exit(3)
	}
	inChildren(t, exitAfterError, func(run int, cmd *exec.Cmd) {
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
	})
}

// inChildren runs the test t in 10 child processes, one after the other, with
// env set to 1 (the test's child branch), and hands each command to check
// to start and judge; a line lost at exit is lost in some runs only.
func inChildren(t *testing.T, env string, check func(run int, cmd *exec.Cmd)) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a child process")
	}
	for run := range 10 {
		cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$")
		cmd.Env = append(os.Environ(), env+"=1")
		check(run, cmd)
	}
}

// exitOnSIGTERM is the child process of TestLastLineSurvivesAnExitOnSIGTERM.
const exitOnSIGTERM = "MCPWRAP_TEST_EXIT_ON_SIGTERM"

// A server that exits on SIGTERM by itself, with no FlushLogger, lost the
// buffered logger's last line (its last call's, at INFO): lines waited
// 50 ms for the flush. They are written at once, off the caller's path.
func TestLastLineSurvivesAnExitOnSIGTERM(t *testing.T) {
	if os.Getenv(exitOnSIGTERM) == "1" {
		term := make(chan os.Signal, 1)
		signal.Notify(term, syscall.SIGTERM)
		l := logline.New(logline.Config{Output: os.Stderr, Buffer: true, Format: "json"})
		l.Info("tool call", "tool", "get_forecast")
		os.Stdout.WriteString("answered\n") // as the answer goes out, the client stops the server
		<-term
		os.Exit(0)
	}
	inChildren(t, exitOnSIGTERM, func(run int, cmd *exec.Cmd) {
		var stderr logbuf.Buffer
		cmd.Stderr = &stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), `"msg":"tool call"`) {
			t.Fatalf("run %d: the last line is lost; stderr: %q", run, stderr.String())
		}
	})
}
