package wrap_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
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
	conn := serve(t, &logs, []wrap.Option{wrap.WithFatalExit(wrap.FatalExit{
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
	if info, _ := errs.InfoOf(res); info.Code != "fatal" || strings.Contains(info.Message, "config.json") {
		t.Fatalf("info %+v", info)
	}
	// Calls after the fatal error are refused while the process stops.
	res, err = conn.Call(t.Context(), "ok", nil)
	if info, _ := errs.InfoOf(res); err != nil || info.Code != "unavailable" || !strings.Contains(info.Message, "shutting down") {
		t.Fatalf("call during the stop: %v %+v", err, res)
	}
	select {
	case code := <-exited:
		if code != 70 { // wrap.ExitFatal, documented
			t.Fatalf("exit code %d, want %d", code, wrap.ExitFatal)
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

func TestFatalHookThatHangsIsAbandonedAtTheTimeout(t *testing.T) {
	release := make(chan struct{})
	exited := make(chan int, 1)
	var logs logbuf.Buffer
	st := wrap.Tool(fatalTool().Tool, fatalTool().Handler, wrap.WithLogger(logs.Logger()), wrap.WithFatalExit(wrap.FatalExit{
		Hooks:   []func(context.Context) error{func(context.Context) error { <-release; return nil }},
		Timeout: 50 * time.Millisecond,
		Exit:    func(code int) { exited <- code },
	}))
	if _, err := st.Handler(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "reload_config"}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("a hanging hook blocked the exit")
	}
	close(release)
	if got, _ := logs.Find("msg", "exiting"); len(got) != 1 || got[0]["hooks_timed_out"] != true {
		t.Fatalf("exit line %v", got)
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
	if !errors.As(err, &exit) || exit.ExitCode() != wrap.ExitFatal {
		t.Fatalf("child ended with %v, want exit status %d\nstderr:\n%s", err, wrap.ExitFatal, stderr.String())
	}
	if !strings.Contains(stdout.String(), `"isError":true`) || !strings.Contains(stdout.String(), "fatal error in tool") {
		t.Fatalf("the in-flight call was not answered: %s", stdout.String())
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	var last map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatalf("last stderr line is not a JSON log line: %q", lines[len(lines)-1])
	}
	if last["msg"] != "exiting" || last["exit_code"] != float64(wrap.ExitFatal) {
		t.Fatalf("last log line %v", last)
	}
	if !strings.Contains(stderr.String(), `"msg":"flushed"`) {
		t.Fatalf("the hook did not run: %s", stderr.String())
	}
}

func fatalChild() {
	logger := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	s := server.NewMCPServer("child", "1.0.0", server.WithToolHandlerMiddleware(wrap.Middleware(
		wrap.WithLogger(logger),
		wrap.WithFatalExit(wrap.FatalExit{Hooks: []func(context.Context) error{func(ctx context.Context) error {
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
