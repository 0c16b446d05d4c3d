package mcpgo_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/childproc"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// stdioExitEnv, set, makes the test binary the README's stdio set-up (a
// buffered observe logger, the one-line retrofit) with one tool, echo:
// "wrapped" serves it with mcpgo.ServeStdio, "bare" with mcp-go's
// server.ServeStdio, as servers did before mcpgo.ServeStdio.
const stdioExitEnv = "MCPWRAP_STDIO_EXIT"

func serveStdioExit(mode string) int {
	logger := obs.NewLogger(obs.WithLogBuffer(), obs.WithLogFormat("json"))
	s := server.NewMCPServer("stdioexit", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logger)))
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	var err error
	if mode == "bare" {
		err = server.ServeStdio(s)
	} else {
		err = mcpgo.ServeStdio(s, logger)
	}
	if err != nil && err != context.Canceled {
		return 1
	}
	return 0
}

// stdioExit is the command that runs the test binary as that server. Under
// -race the child would sleep a second at exit (the race runtime's
// atexit_sleep_ms) after it has written everything: GORACE turns that off.
func stdioExit(mode string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), stdioExitEnv+"="+mode, "GORACE="+os.Getenv("GORACE")+" atexit_sleep_ms=0")
	return cmd
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
		t.Skip("runs a child process")
	}
	const n, runs = 20, 10
	t.Run("stdin closed at once", func(t *testing.T) {
		for run := range runs {
			cmd := stdioExit("wrapped")
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
			cmd := stdioExit("wrapped")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdin, out := childproc.Start(t, cmd)
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
			err := cmd.Wait()
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
