package wrap_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/childproc"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
	"github.com/mcpwrap/mcpwrap/wrap/process"
)

func fatalTool() server.ServerTool {
	return server.ServerTool{Tool: mcp.NewTool("reload_config"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errs.Wrap(errs.Fatal, errors.New("config.json: unexpected end of JSON input"), "configuration is corrupt")
	}}
}

func TestFatalAnswersRunsHooksThenExits(t *testing.T) {
	var (
		mu    sync.Mutex
		order []string
	)
	hook := func(name string, err error) func(context.Context) error {
		return func(ctx context.Context) error {
			if _, ok := ctx.Deadline(); !ok {
				t.Error("hook context has no deadline")
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			return err
		}
	}
	exited := make(chan int, 1)
	var logs logbuf.Buffer
	conn := serve(t, &logs, []wrap.Option{wrap.WithFatalExit(process.FatalExit{
		Hooks: []func(context.Context) error{hook("flush traces", nil), hook("flush logs", errors.New("collector gone"))},
		Grace: 10 * time.Millisecond,
		Exit:  func(code int) { exited <- code },
	})}, fatalTool(), server.ServerTool{Tool: mcp.NewTool("ok"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("fine"), nil
	}})

	res, err := conn.Call(t.Context(), "reload_config", nil)
	if err != nil || !res.IsError {
		t.Fatalf("the in-flight call must get an isError result: %v %+v", err, res)
	}
	if info, _ := mcpgo.InfoOf(res); info.Code != "fatal" || strings.Contains(info.Message, "config.json") {
		t.Fatalf("info %+v", info)
	}
	// Calls after the fatal error are refused while the process stops.
	res, err = conn.Call(t.Context(), "ok", nil)
	if info, _ := mcpgo.InfoOf(res); err != nil || info.Code != "unavailable" || !strings.Contains(info.Message, "shutting down") {
		t.Fatalf("call during the stop: %v %+v", err, res)
	}
	select {
	case code := <-exited:
		if code != 70 { // process.ExitFatal, documented
			t.Fatalf("exit code %d, want %d", code, process.ExitFatal)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("exit was never called")
	}
	mu.Lock()
	if strings.Join(order, ",") != "flush traces,flush logs" {
		t.Fatalf("hooks ran as %v", order)
	}
	mu.Unlock()
	lines, err := logs.Lines()
	if err != nil {
		t.Fatal(err)
	}
	// "exiting" is the last line of the stop itself; the refused call above
	// may be logged on either side of it (it races the grace period), so
	// only such refusals may follow. The real process test checks that
	// nothing follows at all.
	exiting := -1
	for i, l := range lines {
		if l["msg"] == "exiting" {
			exiting = i
		}
	}
	if exiting < 0 {
		t.Fatal("no exiting line")
	}
	if last := lines[exiting]; last["exit_code"] != 70.0 || last["hook_1"] != "collector gone" {
		t.Fatalf("exiting line %v", last)
	}
	for _, l := range lines[exiting+1:] {
		if l["msg"] != "tool call" || l["code"] != "unavailable" {
			t.Fatalf("after the exiting line: %v", l)
		}
	}
	stopping, _ := logs.Find("msg", "fatal error; stopping the server")
	if len(stopping) != 1 || !strings.Contains(stopping[0]["cause"].(string), "unexpected end of JSON input") {
		t.Fatalf("the cause is not logged: %v", stopping)
	}
}

// stopOnFatal calls the fatal tool wrapped with f (its Exit replaced) and
// waits for the exit, failing the test if it never comes; it returns the log.
func stopOnFatal(t *testing.T, f process.FatalExit) *logbuf.Buffer {
	t.Helper()
	exited := make(chan int, 1)
	f.Exit = func(code int) { exited <- code }
	logs := new(logbuf.Buffer)
	st := mcpgo.Tool(wrap.New(), fatalTool().Tool, fatalTool().Handler, wrap.WithLogger(logs.Logger()), wrap.WithFatalExit(f))
	if _, err := st.Handler(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "reload_config"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("exit was never called")
	}
	return logs
}

func TestFatalHookThatHangsIsAbandonedAtTheTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	logs := stopOnFatal(t, process.FatalExit{
		Hooks:   []func(context.Context) error{func(context.Context) error { <-release; return nil }},
		Timeout: 50 * time.Millisecond,
	})
	if got, _ := logs.Find("msg", "exiting"); len(got) != 1 || got[0]["hooks_timed_out"] != true {
		t.Fatalf("exit line %v", got)
	}
}

// TestFatalHookThatPanicsDoesNotStopTheExit: a panicking exit hook killed
// the process from the hooks' goroutine, before the other hooks, the
// exiting line and the exit code asked for (found by mcpwrap vet: a
// goroutine without recover).
func TestFatalHookThatPanicsDoesNotStopTheExit(t *testing.T) {
	ran := false
	logs := stopOnFatal(t, process.FatalExit{
		Hooks: []func(context.Context) error{
			func(context.Context) error { var m map[string]int; m["x"]++; return nil },
			func(context.Context) error { ran = true; return nil },
		},
	})
	got, _ := logs.Find("msg", "exiting")
	if len(got) != 1 || !strings.Contains(fmt.Sprint(got[0]["hook_0"]), "panic: assignment to entry in nil map") || !ran {
		t.Fatalf("exit line %v, second hook ran %v", got, ran)
	}
}

const childEnv = "MCPWRAP_FATAL_CHILD"

// TestFatalExitsTheRealProcess re-runs the test binary as a child that
// serves the fatal tool with the real os.Exit, and checks its exit code, the
// answer it gave, and that its last log line made it to stderr.
func TestFatalExitsTheRealProcess(t *testing.T) {
	if os.Getenv(childEnv) == "1" {
		fatalChild()
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestFatalExitsTheRealProcess$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != process.ExitFatal {
		t.Fatalf("child ended with %v, want exit status %d\nstderr:\n%s", err, process.ExitFatal, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"isError":true`) || !strings.Contains(stdout.String(), "fatal error in tool") {
		t.Fatalf("the in-flight call was not answered: %s", stdout.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatalf("last stderr line is not a JSON log line: %q", lines[len(lines)-1])
	}
	if last["msg"] != "exiting" || last["exit_code"] != float64(process.ExitFatal) {
		t.Fatalf("last log line %v", last)
	}
	if !strings.Contains(stderr.String(), `"msg":"flushed"`) {
		t.Fatalf("the hook did not run: %s", stderr.String())
	}
}

func fatalChild() {
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	s := server.NewMCPServer("child", "1.0.0", attached(wrap.New(
		wrap.WithLogger(logger),
		wrap.WithFatalExit(process.FatalExit{Hooks: []func(context.Context) error{func(ctx context.Context) error {
			logger.InfoContext(ctx, "flushed")
			return nil
		}}}),
	)))
	s.AddTools(fatalTool())
	resp := s.HandleMessage(context.Background(),
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"reload_config"}}`))
	out, _ := json.Marshal(resp)
	fmt.Println(string(out))
	time.Sleep(30 * time.Second) // the exit comes from the wrapper
	os.Exit(3)
}

const drainEnv = "MCPWRAP_DRAIN_CHILD"

// drainChild serves a slow tool, a counter of the slow calls that started
// and a fatal tool whose cause carries a password, over HTTP or stdio, with
// the stop configured as a server would; it is run as a real process by the
// drain tests.
func drainChild(mode string) {
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	ob := obs.New(obs.WithLogger(logger), obs.WithoutTracing(), obs.WithoutMetrics())
	var (
		entered atomic.Int64
		hs      *mcpgo.HTTPServer
	)
	f := process.FatalExit{Drain: 5 * time.Second, Hooks: []func(context.Context) error{
		func(ctx context.Context) error {
			if hs != nil {
				return hs.Shutdown(ctx)
			}
			return nil
		},
		func(ctx context.Context) error { logger.InfoContext(ctx, "flushed"); return nil },
	}}
	if mode == "signal" {
		f.Signals = []os.Signal{syscall.SIGTERM}
	}
	s := server.NewMCPServer("child", "1.0.0", attached(wrap.New(
		obstest.WithObserver(ob), wrap.WithFatalExit(f))))
	s.AddTools(
		server.ServerTool{Tool: mcp.NewTool("slow"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			entered.Add(1)
			time.Sleep(time.Second)
			return mcp.NewToolResultText("done"), nil
		}},
		server.ServerTool{Tool: mcp.NewTool("entered"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(strconv.FormatInt(entered.Load(), 10)), nil
		}},
		server.ServerTool{Tool: mcp.NewTool("reload_config"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errs.Wrap(errs.Fatal, errors.New("connect postgres://app:hunter2@db.internal:5432/app: password authentication failed"), "the database is unusable")
		}},
	)
	if mode == "stdio" {
		_ = server.NewStdioServer(s).Listen(context.Background(), os.Stdin, os.Stdout)
	} else {
		hs = mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{}, server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler)))
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			panic(err)
		}
		fmt.Println("http://" + ln.Addr().String() + "/mcp")
		_ = hs.Serve(ln)
	}
	time.Sleep(30 * time.Second) // the exit comes from the wrapper
	os.Exit(3)
}

// child starts the test binary as a drain child of the given mode.
func child(t *testing.T, mode string, logs *logbuf.Buffer) (*exec.Cmd, io.WriteCloser, io.ReadCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$")
	cmd.Env = append(os.Environ(), drainEnv+"="+mode)
	cmd.Stderr = logs
	in, out := childproc.Start(t, cmd)
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, in, out
}

func callTool(c *client.Client, name string) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	return c.CallTool(ctx, req)
}

// inFlight starts n slow calls spread over the clients and waits until the
// child has started every one of them; wait returns how many were dropped
// or not answered with success.
func inFlight(t *testing.T, clients []*client.Client, n int) (wait func() (dropped, failed int)) {
	t.Helper()
	var (
		wg              sync.WaitGroup
		dropped, failed atomic.Int64
	)
	for i := range n {
		wg.Go(func() {
			res, err := callTool(clients[i%len(clients)], "slow")
			switch {
			case err != nil:
				dropped.Add(1)
			case res.IsError:
				failed.Add(1)
			}
		})
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		res, err := callTool(clients[0], "entered")
		if err != nil {
			t.Fatal(err)
		}
		if res.Content[0].(mcp.TextContent).Text == strconv.Itoa(n) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child never started %d calls", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return func() (int, int) { wg.Wait(); return int(dropped.Load()), int(failed.Load()) }
}

func exitCode(t *testing.T, cmd *exec.Cmd, logs *logbuf.Buffer) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if err == nil {
			return 0
		}
		if !errors.As(err, &exit) {
			t.Fatalf("child: %v", err)
		}
		return exit.ExitCode()
	case <-time.After(20 * time.Second):
		t.Fatalf("the child did not exit; stderr:\n%s", logs.String())
	}
	return -1
}

// checkStopLines checks what the child logged: the reason line, redacted,
// the hooks' work, and "exiting" as the last line with nothing dropped.
func checkStopLines(t *testing.T, logs *logbuf.Buffer, reason string, code int) {
	t.Helper()
	lines, err := logs.Lines()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "hunter2") {
		t.Errorf("a log line carries the password:\n%s", logs.String())
	}
	if got, _ := logs.Find("msg", reason); len(got) != 1 {
		t.Errorf("want one %q line, got %v", reason, got)
	}
	if got, _ := logs.Find("msg", "flushed"); len(got) != 1 {
		t.Errorf("the hooks did not run:\n%s", logs.String())
	}
	last := lines[len(lines)-1]
	if last["msg"] != "exiting" || last["exit_code"] != float64(code) || last["calls_dropped"] != nil || last["hooks_timed_out"] != nil {
		t.Errorf("last line %v", last)
	}
}

// httpClients reads the URL the child serves on from out and connects n
// clients to it.
func httpClients(t *testing.T, out io.Reader, logs *logbuf.Buffer, n int) []*client.Client {
	t.Helper()
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL from the child: %v\n%s", err, logs.String())
	}
	var clients []*client.Client
	for range n {
		tr, err := transport.NewStreamableHTTP(strings.TrimSpace(url))
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, testserver.Start(t, tr))
	}
	return clients
}

// With WithFatalExit, every call in flight was dropped (EOF) when another
// call returned a fatal error: the stop waited a fixed 100ms, then exited.
func TestFatalDrainsInFlightCallsOverHTTP(t *testing.T) {
	logs := checkDrain(t, "http", func(t *testing.T, _ *exec.Cmd, clients []*client.Client, _ *logbuf.Buffer) { fatalCall(t, clients[1]) },
		"fatal error; stopping the server", process.ExitFatal)
	if got, _ := logs.Find("msg", "fatal error; stopping the server"); len(got) == 1 && !strings.Contains(fmt.Sprint(got[0]["cause"]), "password authentication failed") {
		t.Errorf("the cause is not logged: %v", got[0])
	}
}

func TestFatalDrainsInFlightCallsOverStdio(t *testing.T) {
	checkDrain(t, "stdio", func(t *testing.T, _ *exec.Cmd, clients []*client.Client, _ *logbuf.Buffer) { fatalCall(t, clients[0]) },
		"fatal error; stopping the server", process.ExitFatal)
}

func TestSignalDrainsInFlightCallsThenExitsZero(t *testing.T) {
	checkDrain(t, "signal", func(t *testing.T, cmd *exec.Cmd, _ []*client.Client, logs *logbuf.Buffer) {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the signal line", func() bool {
			got, _ := logs.Find("msg", "signal received; stopping the server")
			return len(got) == 1
		})
	}, "signal received; stopping the server", 0)
}

// fatalCall calls the tool that fails fatally, on c.
func fatalCall(t *testing.T, c *client.Client) {
	t.Helper()
	res, err := callTool(c, "reload_config")
	if info, _ := mcpgo.InfoOf(res); err != nil || info.Code != "fatal" {
		t.Fatalf("the fatal call: %v %+v", err, res)
	}
}

// checkDrain runs the test t as a drain child of mode (in the child, it
// serves and never returns), with calls in flight over its clients (one
// over stdio, four over HTTP), until stop stops it (the log so far in
// logs): no call in flight is
// dropped or fails, a call during the drain (over HTTP) is refused as
// shutting down, the child exits with code, and its log says why, as
// checkStopLines checks, with the reason line.
func checkDrain(t *testing.T, mode string, stop func(t *testing.T, cmd *exec.Cmd, clients []*client.Client, logs *logbuf.Buffer), reason string, code int) *logbuf.Buffer {
	t.Helper()
	if m := os.Getenv(drainEnv); m != "" {
		drainChild(m)
	}
	logs := &logbuf.Buffer{}
	cmd, in, out := child(t, mode, logs)
	clients, calls := []*client.Client(nil), 20
	if mode == "stdio" {
		clients, calls = []*client.Client{testserver.Start(t, transport.NewIO(out, in, io.NopCloser(strings.NewReader(""))))}, 3
	} else {
		clients = httpClients(t, out, logs, 4)
	}
	wait := inFlight(t, clients, calls)
	stop(t, cmd, clients, logs)
	if mode != "stdio" {
		res, err := callTool(clients[2], "entered")
		if info, _ := mcpgo.InfoOf(res); err != nil || info.Code != "unavailable" || !strings.Contains(info.Message, "shutting down") {
			t.Fatalf("a call during the drain: %v %+v", err, res)
		}
	}
	if dropped, failed := wait(); dropped+failed != 0 {
		t.Fatalf("of %d calls in flight, %d were dropped and %d failed", calls, dropped, failed)
	}
	if got := exitCode(t, cmd, logs); got != code {
		t.Fatalf("exit status %d, want %d\n%s", got, code, logs.String())
	}
	checkStopLines(t, logs, reason, code)
	return logs
}

// A Grace as long as the Timeout used to leave the hooks no time at all
// (hooks_timed_out, the metrics flush lost): the two shared one deadline.
func TestFatalHooksHaveTheirOwnBudget(t *testing.T) {
	logs := stopOnFatal(t, process.FatalExit{
		Hooks:   []func(context.Context) error{func(context.Context) error { time.Sleep(20 * time.Millisecond); return nil }},
		Grace:   2 * time.Second,
		Timeout: 2 * time.Second,
	})
	if got, _ := logs.Find("msg", "exiting"); len(got) != 1 || got[0]["hooks_timed_out"] != nil || got[0]["calls_dropped"] != nil {
		t.Fatalf("exiting line %v", got)
	}
}

// TestToolFatalExitLogsThroughTheMiddlewaresLogger: a tool's own
// WithFatalExit, on a server whose Middleware logs, stopped the process
// without a word: its fatal state was bound to the tool's empty observer
// when its options were evaluated, and the telemetry it inherited from
// the Middleware never reached it.
func TestToolFatalExitLogsThroughTheMiddlewaresLogger(t *testing.T) {
	cases := []struct {
		name  string
		where string // which options carry WithFatalExit
	}{
		{"fatal on the tool", "tool"},
		{"fatal on the middleware", "middleware"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			exited := make(chan int, 1)
			fatal := wrap.WithFatalExit(process.FatalExit{Grace: time.Millisecond, Exit: func(code int) { exited <- code }})
			var logs logbuf.Buffer
			mw := []wrap.Option{wrap.WithLogger(logs.Logger())}
			var own []wrap.Option
			if c.where == "tool" {
				own = append(own, fatal)
			} else {
				mw = append(mw, fatal)
			}
			// The tool is built with the Wrapper whose middleware serves it,
			// as mcpgo.Tool asks.
			w := wrap.New(mw...)
			s := server.NewMCPServer("config", "1.0.0", attached(w))
			s.AddTools(mcpgo.Tool(w, fatalTool().Tool, fatalTool().Handler, own...))
			conn := testserver.StartHTTP(t, s)
			res, err := conn.Call(t.Context(), "reload_config", nil)
			if info, _ := mcpgo.InfoOf(res); err != nil || info.Code != "fatal" {
				t.Fatalf("want a fatal result: %v %+v", err, res)
			}
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				t.Fatal("exit was never called")
			}
			stopping, _ := logs.Find("msg", "fatal error; stopping the server")
			if len(stopping) != 1 || !strings.Contains(fmt.Sprint(stopping[0]["cause"]), "unexpected end of JSON input") {
				t.Fatalf("want one stopping line with the cause, got %v\n%s", stopping, logs.String())
			}
			if exiting, _ := logs.Find("msg", "exiting"); len(exiting) != 1 || exiting[0]["exit_code"] != float64(process.ExitFatal) {
				t.Fatalf("want one exiting line, got %v\n%s", exiting, logs.String())
			}
		})
	}
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
