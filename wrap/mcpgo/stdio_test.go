package mcpgo_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/childproc"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// hangingStdioEnv, set, makes the test binary a stdio server whose one
// tool hangs: "bare" serves it with server.ServeStdio and no wrapper,
// "wrapped" with Attach, WithTimeout (of MCPWRAP_HANGING_STDIO_TIMEOUT) and
// mcpgo.ServeStdio.
const hangingStdioEnv = "MCPWRAP_HANGING_STDIO"

func TestMain(m *testing.M) {
	if mode := os.Getenv(hangingStdioEnv); mode != "" {
		os.Exit(serveHanging(mode))
	}
	if mode := os.Getenv(stdioExitEnv); mode != "" {
		os.Exit(serveStdioExit(mode))
	}
	os.Exit(m.Run())
}

func serveHanging(mode string) int {
	s := server.NewMCPServer("hang", "1.0.0")
	s.AddTool(mcp.NewTool("hang"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {} // an upstream that never answers, and a handler that ignores its context
	})
	var err error
	if mode == "bare" {
		err = server.ServeStdio(s)
	} else {
		logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
		d, _ := time.ParseDuration(os.Getenv(hangingStdioEnv + "_TIMEOUT"))
		mcpgo.Attach(s, wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(d)))
		err = mcpgo.ServeStdio(s, logger)
	}
	if err != nil {
		return 1
	}
	return 0
}

// mcp-go's stdio server hands tool calls to five workers through a queue;
// the timeout counted from when a worker took a call, so 63 of 68 calls to
// a hanging tool waited in the queue a timeout per five calls ahead of them
// (TestStdioTimesQueuedCallsFromTheirRead, issue 37 item 3).
// MCPWRAP_HANGING_STDIO_MODE=bare measures the server without the wrapper.
func TestStdioTimesQueuedCallsFromTheirRead(t *testing.T) {
	mode := os.Getenv(hangingStdioEnv + "_MODE")
	if mode == "" {
		mode = "wrapped"
	}
	// 68 calls under a 1s timeout is the report's run. 300 overflow
	// mcp-go's default queue of 100, past which it serves a call on its
	// read loop and reads no more of stdin until that call ends: a round of
	// a timeout per 106 calls. Margins allow for a loaded machine under
	// -race, where the server's own work for 300 calls takes a second.
	cases := []struct {
		calls           int
		timeout, margin time.Duration
	}{
		{68, time.Second, time.Second},
		{300, 2 * time.Second, 2 * time.Second},
	}
	for _, c := range cases {
		t.Run(strconv.Itoa(c.calls), func(t *testing.T) { callHanging(t, mode, c.calls, c.timeout, c.margin) })
	}
}

func callHanging(t *testing.T, mode string, calls int, hangTimeout, margin time.Duration) {
	c, err := client.NewStdioMCPClient(os.Args[0], append(os.Environ(), hangingStdioEnv+"="+mode,
		hangingStdioEnv+"_TIMEOUT="+hangTimeout.String()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	stderr, _ := client.GetStderr(c)
	lines := make(chan map[string]any, calls+16)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["msg"] == "tool call" {
				lines <- m
			}
		}
	}()
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "t", Version: "1"}
	if _, err := c.Initialize(t.Context(), init); err != nil {
		t.Fatal(err)
	}

	window := hangTimeout + 2*margin
	var (
		mu       sync.Mutex
		latency  []time.Duration
		problems []string
	)
	var wg sync.WaitGroup
	for range calls {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(t.Context(), window)
			defer cancel()
			req := mcp.CallToolRequest{}
			req.Params.Name = "hang"
			start := time.Now()
			res, err := c.CallTool(ctx, req)
			took := time.Since(start)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				return // not answered within the window
			}
			latency = append(latency, took)
			info, ok := mcpgo.InfoOf(res)
			if !ok || info.Code != "timeout" || info.CallID == "" {
				problems = append(problems, "not a timeout result with a call id: "+info.Code+" "+info.Message)
			}
		})
	}
	wg.Wait()
	slices.Sort(latency)
	var worst, median time.Duration
	if len(latency) > 0 {
		worst, median = latency[len(latency)-1], latency[len(latency)/2]
	}
	t.Logf("%s: %d/%d calls answered within %v, median after %v, slowest after %v",
		mode, len(latency), calls, window, median, worst)
	if len(latency) != calls {
		t.Fatalf("%d of %d calls answered within %v", len(latency), calls, window)
	}
	if worst > hangTimeout+margin {
		t.Errorf("slowest answer after %v, want at most the timeout %v + %v", worst, hangTimeout, margin)
	}
	for _, p := range problems {
		t.Error(p)
	}
	// One log line per call, none for the handlers still hanging, each
	// with the time the call waited in the queue in its duration.
	logged := 0
	for logged < calls {
		select {
		case m := <-lines:
			logged++
			if ms, _ := m["duration_ms"].(float64); ms < float64(hangTimeout.Milliseconds()) {
				t.Errorf("a log line with duration_ms %v, less than the timeout: %v", ms, m)
			}
		case <-time.After(10 * time.Second):
			// Generous: a child starved of CPU (-race, the packages
			// tested beside it) wrote its last lines more than 2s apart
			// in CI runs here; a lost line still fails.
			t.Fatalf("%d log lines for %d calls", logged, calls)
		}
	}
	select {
	case m := <-lines:
		t.Errorf("a log line more than the %d calls: %v", calls, m)
	case <-time.After(200 * time.Millisecond):
	}
}

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

// answeredIDs returns the ids answered (with a result or an error) on stdout.
func answeredIDs(stdout []byte) map[string]bool {
	ids := map[string]bool{}
	for l := range bytes.SplitSeq(bytes.TrimSpace(stdout), []byte("\n")) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(l, &m) == nil && (m.Result != nil || m.Error != nil) {
			ids[string(m.ID)] = true
		}
	}
	return ids
}

// A client that wrote 8 requests and closed stdin at once got 1 to 8
// answers: on the end of stdin mcp-go cancels the requests in flight and
// its tool-call workers stop taking the queued ones. mcpgo.ServeStdio
// answers every request read before the end.
func TestStdioAnswersEveryRequestReadBeforeStdinCloses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	// The bare runs only give the figure logged at the end: fewer of them.
	const runs, bareRuns = 20, 5
	requests := stdioInit + stdioCalls(7) // initialize and 7 tool calls: ids 1 … 8
	serve := func(t *testing.T, mode string) map[string]bool {
		cmd := stdioExit(mode)
		cmd.Stdin = strings.NewReader(requests)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v\n%s", err, stderr.Bytes())
		}
		return answeredIDs(stdout.Bytes())
	}
	for run := range runs {
		got := serve(t, "wrapped")
		for id := 1; id <= 8; id++ {
			if k := strconv.Itoa(id); !got[k] {
				t.Fatalf("run %d: request %s unanswered; answered %d of 8: %v", run, k, len(got), got)
			}
		}
	}
	bare := 0
	for range bareRuns {
		bare += len(serve(t, "bare"))
	}
	t.Logf("server.ServeStdio answered %d of %d requests over %d runs; mcpgo.ServeStdio all %d over %d", bare, 8*bareRuns, bareRuns, 8*runs, runs)
}

// TestConcurrentStdioCallsHaveOneLineEach: 40 concurrent calls over mcp-go's
// stdio server (which runs tool calls on a worker pool), successes and
// failures mixed: exactly one log line per call, each with its JSON-RPC
// request id.
func TestConcurrentStdioCallsHaveOneLineEach(t *testing.T) {
	var logs logbuf.Buffer
	s := server.NewMCPServer("stdio", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logs.Logger())))
	s.AddTool(mcp.NewTool("work", mcp.WithNumber("n")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		time.Sleep(time.Millisecond)
		if int(req.GetFloat("n", 0))%3 == 0 {
			return nil, fmt.Errorf("item %d is locked", int(req.GetFloat("n", 0)))
		}
		return mcp.NewToolResultText("done"), nil
	})
	cl := testserver.StartStdio(t, s)
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var req mcp.CallToolRequest
			req.Params.Name = "work"
			req.Params.Arguments = map[string]any{"n": i}
			if _, err := cl.CallTool(t.Context(), req); err != nil {
				t.Errorf("call %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	lines, err := logs.Find("tool", "work")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[any]int{}
	for _, l := range lines {
		ids[l["request_id"]]++
	}
	if len(lines) != n || len(ids) != n || ids[nil] != 0 {
		t.Fatalf("%d lines, %d distinct request ids (%d without one) for %d calls", len(lines), len(ids), ids[nil], n)
	}
}
