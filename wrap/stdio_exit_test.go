package wrap_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/process"
)

// buildStdioExit builds testdata/stdioexit, the README's buffered-logger
// stdio server, into a temporary directory.
func buildStdioExit(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "stdioexit")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/stdioexit").CombinedOutput(); err != nil {
		t.Fatalf("build testdata/stdioexit: %v\n%s", err, out)
	}
	return bin
}

const stdioInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`

// stdioCalls is n echo calls, ids 2 … n+1.
func stdioCalls(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`+"\n", i+2)
	}
	return b.String()
}

// answeredCalls returns the ids of the tool calls answered on stdout.
func answeredCalls(t *testing.T, stdout []byte) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	for l := range bytes.SplitSeq(bytes.TrimSpace(stdout), []byte("\n")) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result *struct {
				Content json.RawMessage `json:"content"`
			} `json:"result"`
		}
		if json.Unmarshal(l, &m) == nil && m.Result != nil && m.Result.Content != nil {
			ids[string(m.ID)] = true
		}
	}
	return ids
}

// loggedCalls counts the "tool call" lines on stderr. (It counts lines,
// not request ids: under concurrent stdio calls a line may lack its
// request_id, and a call may get a second line — other defects.)
func loggedCalls(t *testing.T, stderr []byte) int {
	t.Helper()
	n := 0
	for l := range bytes.SplitSeq(bytes.TrimSpace(stderr), []byte("\n")) {
		var m struct {
			Msg string `json:"msg"`
		}
		if json.Unmarshal(l, &m) == nil && m.Msg == "tool call" {
			n++
		}
	}
	return n
}

// The buffered logger the README recommends for stdio wrote 0 log lines in
// 10 of 10 runs when the client wrote its requests and closed stdin at
// once: the process ended before the buffer's 50 ms flush. The same held
// on SIGTERM.
func TestBufferedLogLinesSurviveExit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a child process")
	}
	bin := buildStdioExit(t)
	const n, runs = 20, 10
	t.Run("stdin closed at once", func(t *testing.T) {
		for run := range runs {
			cmd := exec.Command(bin)
			cmd.Stdin = strings.NewReader(stdioInit + stdioCalls(n))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("run %d: %v\n%s", run, err, stderr.Bytes())
			}
			// Every call read before stdin ended is answered
			// (TestStdioAnswersEveryRequestReadBeforeStdinCloses), and
			// every call answered has its line.
			answered, logged := answeredCalls(t, stdout.Bytes()), loggedCalls(t, stderr.Bytes())
			if len(answered) != n || logged < n {
				t.Fatalf("run %d: %d of %d calls answered, %d log lines:\n%s", run, len(answered), n, logged, stderr.Bytes())
			}
		}
	})
	t.Run("SIGTERM", func(t *testing.T) {
		for run := range runs {
			cmd := exec.Command(bin)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(stdin, stdioInit+stdioCalls(n)); err != nil {
				t.Fatal(err)
			}
			// Every answer is in, so every line was logged; the signal comes
			// at once, well inside the buffer's flush interval.
			var stdout bytes.Buffer
			sc := bufio.NewScanner(out)
			deadline := time.AfterFunc(10*time.Second, func() { _ = cmd.Process.Kill() })
			for len(answeredCalls(t, stdout.Bytes())) < n && sc.Scan() {
				stdout.Write(sc.Bytes())
				stdout.WriteByte('\n')
			}
			if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, out)
			err = cmd.Wait()
			deadline.Stop()
			_ = stdin.Close()
			if err != nil {
				t.Fatalf("run %d: %v\n%s", run, err, stderr.Bytes())
			}
			if answered, logged := answeredCalls(t, stdout.Bytes()), loggedCalls(t, stderr.Bytes()); len(answered) != n || logged < n {
				t.Fatalf("run %d: %d of %d calls answered, %d log lines:\n%s", run, len(answered), n, logged, stderr.Bytes())
			}
		}
	})
}

// The fatal path logged its "exiting" line into the buffered logger and
// exited at once: the line never reached the output.
func TestFatalExitWritesOutTheBufferedLog(t *testing.T) {
	var out logbuf.Buffer
	logger := obs.NewLogger(obs.WithLogBuffer(), obs.WithLogOutput(&out), obs.WithLogFormat("json"))
	atExit := make(chan string, 1)
	s := server.NewMCPServer("weather", "1.0.0", attached(wrap.New(wrap.WithLogger(logger), wrap.WithFatalExit(process.FatalExit{
		Grace: time.Millisecond,
		Exit:  func(int) { atExit <- out.String() }, // what the output holds as the process ends
	}))))
	s.AddTools(fatalTool())
	conn := testserver.StartHTTP(t, s)
	if _, err := conn.Call(t.Context(), "reload_config", nil); err != nil {
		t.Fatal(err)
	}
	select {
	case written := <-atExit:
		if !strings.Contains(written, `"msg":"exiting"`) {
			t.Fatalf("the output at exit has no exiting line:\n%s", written)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("exit was never called")
	}
}
