package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// taskServer is a server with task tools and regular tools that may run
// as tasks, written as mcp-go's README writes them, attached as ours says,
// with counts of how often each handler ran.
type taskServer struct {
	s     *server.MCPServer
	runs  map[string]*atomic.Int32
	logs  *logbuf.Buffer
	spans *tracetest.SpanRecorder
	// ended receives how the context of "wait" and "wait_task" ended.
	ended chan error
}

// The panic's text, which must reach no client.
const panicText = "kaboom: sk-live-0123456789abcdef at /srv/app/internal/secret.go:42"

func newTaskServer(t *testing.T, opts ...wrap.Option) *taskServer {
	t.Helper()
	return newTaskServerWith(t, nil, opts...)
}

// newTaskServerWith is newTaskServer with mcp-go's options sopts too.
func newTaskServerWith(t *testing.T, sopts []server.ServerOption, opts ...wrap.Option) *taskServer {
	t.Helper()
	sopts = append([]server.ServerOption{server.WithTaskCapabilities(true, true, true)}, sopts...)
	ts := &taskServer{s: server.NewMCPServer("reports", "1.0.0", sopts...),
		runs: map[string]*atomic.Int32{}, logs: &logbuf.Buffer{}, spans: tracetest.NewSpanRecorder(), ended: make(chan error, 8)}
	count := func(name string) *atomic.Int32 {
		n := new(atomic.Int32)
		ts.runs[name] = n
		return n
	}
	// work is what every tool does: wait for ms (an argument) unless its
	// context ends first.
	work := func(ctx context.Context, req mcp.CallToolRequest) (string, error) {
		ms := req.GetFloat("ms", 0)
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
			return "report of " + req.GetString("repo", "?"), nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	required := mcp.WithTaskSupport(mcp.TaskSupportRequired)
	report := count("report")
	ts.s.AddTaskTool(mcp.NewTool("report", required, mcp.WithString("repo"), mcp.WithNumber("ms")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
			report.Add(1)
			text, err := work(ctx, req)
			if err != nil {
				return nil, err
			}
			return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent(text)}}, nil
		})
	// stubborn ignores its context.
	stubborn := count("stubborn")
	ts.s.AddTaskTool(mcp.NewTool("stubborn", required), func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		stubborn.Add(1)
		time.Sleep(time.Second)
		return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent("late")}}, nil
	})
	boom := count("boom")
	ts.s.AddTaskTool(mcp.NewTool("boom", required), func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		boom.Add(1)
		panic(panicText)
	})
	waitTask := count("wait_task")
	ts.s.AddTaskTool(mcp.NewTool("wait_task", required), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		waitTask.Add(1)
		<-ctx.Done()
		ts.ended <- ctx.Err()
		return nil, ctx.Err()
	})
	export := count("export")
	ts.s.AddTool(mcp.NewTool("export", mcp.WithTaskSupport(mcp.TaskSupportOptional), mcp.WithString("repo"), mcp.WithNumber("ms")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			export.Add(1)
			text, err := work(ctx, req)
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(text), nil
		})
	wait := count("wait")
	ts.s.AddTool(mcp.NewTool("wait", mcp.WithTaskSupport(mcp.TaskSupportOptional)),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			wait.Add(1)
			<-ctx.Done()
			ts.ended <- ctx.Err()
			return nil, ctx.Err()
		})
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(ts.spans))
	mcpgo.Attach(ts.s, wrap.New(append([]wrap.Option{wrap.WithLogger(ts.logs.Logger()),
		wrap.WithTelemetry(observe.WithTracerProvider(tp))}, opts...)...))
	return ts
}

var taskRequestID atomic.Int64

// callAsTask makes a task-augmented tools/call through cl's transport (the
// mcp-go client has no method for one) and returns the raw JSON-RPC
// response: its result, or its error.
func callAsTask(t *testing.T, cl *client.Client, tool string, args map[string]any) *transport.JSONRPCResponse {
	t.Helper()
	return callAsTaskTTL(t, cl, tool, args, nil)
}

// callAsTaskTTL is callAsTask asking for a task that lives ttl ms.
func callAsTaskTTL(t *testing.T, cl *client.Client, tool string, args map[string]any, ttl *int64) *transport.JSONRPCResponse {
	t.Helper()
	params := mcp.CallToolParams{Name: tool, Arguments: args, Task: &mcp.TaskParams{TTL: ttl}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := cl.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION,
		ID: mcp.NewRequestId(1<<20 + taskRequestID.Add(1)), Method: string(mcp.MethodToolsCall), Params: params})
	if err != nil {
		t.Fatalf("tools/call %s as a task: %v", tool, err)
	}
	return resp
}

// createdTaskID is the id of the task resp created, "" when it created
// none.
// waitCanceled waits up to 5 s for the context of "wait" or "wait_task"
// to end, canceled; if it does not end, the test fails saying stuck.
func (ts *taskServer) waitCanceled(t *testing.T, stuck string) {
	t.Helper()
	select {
	case err := <-ts.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the handler's context ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal(stuck)
	}
}

// startTask calls tool as a task and returns the created task's id,
// failing the test when no task was created.
func startTask(t *testing.T, cl *client.Client, tool string, args map[string]any) string {
	t.Helper()
	id := createdTaskID(t, callAsTask(t, cl, tool, args))
	if id == "" {
		t.Fatal("no task was created")
	}
	return id
}

func createdTaskID(t *testing.T, resp *transport.JSONRPCResponse) string {
	t.Helper()
	if resp.Error != nil {
		return ""
	}
	var created struct {
		Task *mcp.Task `json:"task"`
	}
	if err := json.Unmarshal(resp.Result, &created); err != nil {
		t.Fatalf("answer %s: %v", resp.Result, err)
	}
	if created.Task == nil {
		return ""
	}
	return created.Task.TaskId
}

// waitTask polls the task until it ends and returns it.
func waitTask(t *testing.T, cl *client.Client, id string) *mcp.GetTaskResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cl.WaitForTask(ctx, mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: id}}, 10*time.Millisecond)
	if err != nil {
		t.Fatalf("task %s: %v", id, err)
	}
	return res
}

func taskResult(t *testing.T, cl *client.Client, id string) *mcp.TaskResultResult {
	t.Helper()
	res, err := cl.TaskResult(context.Background(), mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: id}})
	if err != nil {
		t.Fatalf("tasks/result %s: %v", id, err)
	}
	return res
}

func listTasks(t *testing.T, cl *client.Client) []mcp.Task {
	t.Helper()
	res, err := cl.ListTasks(context.Background(), mcp.ListTasksRequest{})
	if err != nil {
		t.Fatalf("tasks/list: %v", err)
	}
	return res.Tasks
}

func resultText(content []mcp.Content) string {
	var b strings.Builder
	for _, c := range content {
		if tc, ok := c.(mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// taskLines returns the log lines of the task id.
func (ts *taskServer) taskLines(t *testing.T, id string) []map[string]any {
	t.Helper()
	lines, err := ts.logs.Find("task_id", id)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// waitLines waits for n lines of the task id (the work's line is written
// as the task ends, which a client may see first).
func (ts *taskServer) waitLines(t *testing.T, id string, n int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		lines := ts.taskLines(t, id)
		if len(lines) >= n || time.Now().After(deadline) {
			return lines
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func outcomes(lines []map[string]any) []string {
	var out []string
	for _, l := range lines {
		s, _ := l["outcome"].(string)
		out = append(out, s)
	}
	return out
}

// TestTaskCallRefusedAtCreation: a task call the policy refuses is
// answered as the same call in place is — an isError result saying why,
// or the unknown tool's error for a hidden one — no task is created and
// no handler runs, whether the tool is a task tool or a regular tool run
// as a task, and the log line says what the policy decided.
func TestTaskCallRefusedAtCreation(t *testing.T) {
	policy := func(stepUp bool) authz.Policy {
		return authz.Policy{
			Tools:  map[string][]string{"report": {"repo:admin"}, "export": {"repo:admin"}},
			StepUp: stepUp,
			Local:  []string{"repo:admin"},
			Check: func(_ context.Context, _ authz.Caller, r authz.Request) error {
				var args struct{ Repo string }
				if len(r.Arguments) > 0 && json.Unmarshal(r.Arguments, &args) == nil && args.Repo == "payroll" {
					return errors.New("payroll reports are not for this client")
				}
				return nil
			},
		}
	}
	for _, c := range []struct {
		name, transport, token, tool, repo string
		stepUp                             bool
		// want is a piece of the isError result's text; "" means a
		// JSON-RPC error (a hidden tool is answered as an unknown one).
		want, outcome string
	}{
		{"step-up task tool", "http", "reader", "report", "acme", true, "repo:admin", "permission_denied"},
		{"step-up regular tool", "http", "reader", "export", "acme", true, "repo:admin", "permission_denied"},
		{"step-up stateless", "stateless", "reader", "report", "acme", true, "repo:admin", "permission_denied"},
		{"check task tool", "http", "admin", "report", "payroll", false, "payroll reports are not for this client", "permission_denied"},
		{"check regular tool", "http", "admin", "export", "payroll", false, "payroll reports are not for this client", "permission_denied"},
		{"check over stdio", "stdio", "", "report", "payroll", false, "payroll reports are not for this client", "permission_denied"},
		{"hidden task tool", "http", "reader", "report", "acme", false, "", "protocol_error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := newTaskServer(t, wrap.WithAuthorization(policy(c.stepUp)))
			var h map[string]string
			if c.token != "" {
				h = map[string]string{"Authorization": "Bearer " + c.token}
			}
			cl := taskClient(t, ts.s, c.transport, h)
			resp := callAsTask(t, cl, c.tool, map[string]any{"repo": c.repo})
			if id := createdTaskID(t, resp); id != "" {
				t.Fatalf("a task %s was created: %s", id, resp.Result)
			}
			if c.want == "" {
				if resp.Error == nil || !strings.Contains(resp.Error.Message, "not found") {
					t.Fatalf("answer %s %v, want the unknown tool's error", resp.Result, resp.Error)
				}
			} else {
				if resp.Error != nil {
					t.Fatalf("JSON-RPC error %d %s, want an isError result", resp.Error.Code, resp.Error.Message)
				}
				res, err := mcp.ParseCallToolResult(&resp.Result)
				if err != nil {
					t.Fatal(err)
				}
				if !res.IsError || !strings.Contains(resultText(res.Content), c.want) {
					t.Fatalf("answer %s, want an isError result saying %q", resp.Result, c.want)
				}
				info, ok := mcpgo.InfoOf(res)
				if !ok || info.Code != "permission_denied" {
					t.Errorf("structured content %+v, want code permission_denied", info)
				}
			}
			if n := ts.runs[c.tool].Load(); n != 0 {
				t.Errorf("the handler ran %d times", n)
			}
			if tasks := listTasks(t, cl); len(tasks) != 0 {
				t.Errorf("tasks/list shows %d tasks", len(tasks))
			}
			lines, err := ts.logs.Find("tool", c.tool)
			if err != nil {
				t.Fatal(err)
			}
			if len(lines) != 1 || lines[0]["outcome"] != c.outcome || lines[0]["authz"] == nil {
				t.Errorf("log lines %v, want one with outcome %s and the authz group", lines, c.outcome)
			}
			if tools := testserver.ToolNames(t, cl); strings.Contains(strings.Join(tools, " "), "mcpwrap") {
				t.Errorf("tools/list shows %v", tools)
			}
		})
	}
}

// TestTaskPanicShowsNoPanicText: a task tool that panics ends its task
// with the masked error result a call in place gets; its text, its file
// and its secret reach no field of tasks/get, tasks/result or tasks/list,
// and the work's log line says panic, with the task id.
func TestTaskPanicShowsNoPanicText(t *testing.T) {
	ts := newTaskServer(t)
	cl := taskClient(t, ts.s, "http")
	id := startTask(t, cl, "boom", nil)
	got := waitTask(t, cl, id)
	res := taskResult(t, cl, id)
	list := listTasks(t, cl)
	for what, v := range map[string]any{"tasks/get": got, "tasks/result": res, "tasks/list": list} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, leak := range []string{"kaboom", "sk-live", "secret.go", "panic"} {
			if strings.Contains(string(b), leak) {
				t.Errorf("%s shows %q: %s", what, leak, b)
			}
		}
	}
	if !res.IsError || !strings.Contains(resultText(res.Content), "internal error") {
		t.Errorf("tasks/result %+v, want the masked internal error", res)
	}
	lines := ts.waitLines(t, id, 2)
	if o := outcomes(lines); len(o) != 2 || o[0] != "task_created" || o[1] != "panic" {
		t.Fatalf("the task's lines say %v, want task_created then panic", o)
	}
	if stack, _ := lines[1]["stack"].(string); stack == "" {
		t.Errorf("the panic's line has no stack: %v", lines[1])
	}
}

// TestTaskOutlivesTimeoutAndRequest: the work of a task is not bound by
// WithTimeout, which bounds calls answered in place, nor by the request
// that created it: a task longer than both completes, for a task tool
// and a regular tool run as a task, over streamable HTTP (stateful and
// stateless) and stdio.
func TestTaskOutlivesTimeoutAndRequest(t *testing.T) {
	for _, transport := range []string{"http", "stateless", "stdio"} {
		for _, tool := range []string{"report", "export"} {
			t.Run(transport+"/"+tool, func(t *testing.T) {
				ts := newTaskServer(t, wrap.WithTimeout(50*time.Millisecond))
				cl := taskClient(t, ts.s, transport)
				id := startTask(t, cl, tool, map[string]any{"repo": "acme", "ms": 300})
				if got := waitTask(t, cl, id); got.Status != mcp.TaskStatusCompleted {
					t.Fatalf("task %s is %s (%s), want completed", id, got.Status, got.StatusMessage)
				}
				res := taskResult(t, cl, id)
				if res.IsError || resultText(res.Content) != "report of acme" {
					t.Fatalf("tasks/result %+v, want the report", res)
				}
				if o := outcomes(ts.waitLines(t, id, 2)); len(o) != 2 || o[0] != "task_created" || o[1] != "success" {
					t.Errorf("the task's lines say %v, want task_created then success", o)
				}
			})
		}
	}
}

// TestTaskCancelLeavesItCancelled: tasks/cancel ends the work (its
// handler sees its context end) and the task stays cancelled, as on bare
// mcp-go; the work's line says canceled.
func TestTaskCancelLeavesItCancelled(t *testing.T) {
	for _, tool := range []string{"wait_task", "wait"} {
		t.Run(tool, func(t *testing.T) {
			ts := newTaskServer(t)
			cl := taskClient(t, ts.s, "http")
			id := startTask(t, cl, tool, nil)
			time.Sleep(50 * time.Millisecond) // the creating request was answered long ago
			if got := waitTaskStatus(t, cl, id); got != mcp.TaskStatusWorking {
				t.Fatalf("task %s is %s before tasks/cancel, want working", id, got)
			}
			if _, err := cl.CancelTask(context.Background(), mcp.CancelTaskRequest{Params: mcp.CancelTaskParams{TaskId: id}}); err != nil {
				t.Fatal(err)
			}
			ts.waitCanceled(t, "the handler's context did not end")
			if got := waitTask(t, cl, id); got.Status != mcp.TaskStatusCancelled {
				t.Errorf("task %s is %s, want cancelled", id, got.Status)
			}
			if o := outcomes(ts.waitLines(t, id, 2)); len(o) != 2 || o[0] != "task_created" || o[1] != "canceled" {
				t.Errorf("the task's lines say %v, want task_created then canceled", o)
			}
		})
	}
}

func waitTaskStatus(t *testing.T, cl *client.Client, id string) mcp.TaskStatus {
	t.Helper()
	res, err := cl.GetTask(context.Background(), mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: id}})
	if err != nil {
		t.Fatal(err)
	}
	return res.Status
}

// TestTaskLinesShareTaskID: a task leaves two lines, its creation
// (task_created, in a fraction of the work's time) and its work (the real
// outcome, the work's duration), with the same task and call id, and two
// spans carrying the task id, the work's linked to the creation's.
func TestTaskLinesShareTaskID(t *testing.T) {
	ts := newTaskServer(t)
	cl := taskClient(t, ts.s, "http")
	id := createdTaskID(t, callAsTask(t, cl, "report", map[string]any{"repo": "acme", "ms": 100}))
	waitTask(t, cl, id)
	lines := ts.waitLines(t, id, 2)
	if len(lines) != 2 {
		t.Fatalf("%d lines carry the task id, want 2: %v", len(lines), lines)
	}
	created, done := lines[0], lines[1]
	if created["outcome"] != "task_created" || done["outcome"] != "success" {
		t.Errorf("outcomes %v and %v, want task_created and success", created["outcome"], done["outcome"])
	}
	if created["call_id"] != done["call_id"] || created["call_id"] == nil {
		t.Errorf("call ids %v and %v, want the same", created["call_id"], done["call_id"])
	}
	took, _ := done["duration_ms"].(float64)
	if took < 100 {
		t.Errorf("the work's line says %vms, want the work's 100ms or more", took)
	}
	if d, _ := created["duration_ms"].(float64); d >= took {
		t.Errorf("the creation's line says %vms, want less than the work's %vms", d, took)
	}
	var creation, work sdktrace.ReadOnlySpan
	for _, s := range ts.spans.Ended() {
		for _, a := range s.Attributes() {
			if a.Key == "mcpwrap.task.id" && a.Value.AsString() == id {
				switch {
				case creation == nil:
					creation = s
				default:
					work = s
				}
			}
		}
	}
	if creation == nil || work == nil {
		t.Fatalf("spans with the task id: %v and %v, want two", creation, work)
	}
	if links := work.Links(); len(links) != 1 || links[0].SpanContext.SpanID() != creation.SpanContext().SpanID() {
		t.Errorf("the work's span links %v, want the creation's span %v", links, creation.SpanContext().SpanID())
	}
}

// TestTasksBoundedPerCaller: a caller with as many working tasks as
// WithTasksPerCaller allows is refused one more at its creation, with the
// bulkhead's answer (unavailable, retry after); once one of its tasks
// ends, it may create another.
func TestTasksBoundedPerCaller(t *testing.T) {
	ts := newTaskServer(t, wrap.WithTasksPerCaller(1))
	cl := taskClient(t, ts.s, "http")
	first := createdTaskID(t, callAsTask(t, cl, "wait_task", nil))
	if first == "" {
		t.Fatal("no task was created")
	}
	resp := callAsTask(t, cl, "report", map[string]any{"repo": "acme"})
	if id := createdTaskID(t, resp); id != "" {
		t.Fatalf("a second task %s was created", id)
	}
	res, err := mcp.ParseCallToolResult(&resp.Result)
	if err != nil {
		t.Fatal(err)
	}
	if info, ok := mcpgo.InfoOf(res); !ok || info.Code != "unavailable" || info.RetryAfterSeconds <= 0 {
		t.Errorf("refusal %s, want unavailable with a retry-after", resp.Result)
	}
	if n := ts.runs["report"].Load(); n != 0 {
		t.Errorf("the refused tool ran %d times", n)
	}
	if _, err := cl.CancelTask(context.Background(), mcp.CancelTaskRequest{Params: mcp.CancelTaskParams{TaskId: first}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if id := createdTaskID(t, callAsTask(t, cl, "report", map[string]any{"repo": "acme"})); id != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no task could be created after the first ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestTaskTimeoutEndsTheWork: WithTaskTimeout bounds the work of a task:
// a handler that ignores its context still ends its task on time, with a
// timeout result.
func TestTaskTimeoutEndsTheWork(t *testing.T) {
	ts := newTaskServer(t, wrap.WithTaskTimeout(100*time.Millisecond))
	cl := taskClient(t, ts.s, "http")
	id := createdTaskID(t, callAsTask(t, cl, "stubborn", nil))
	begin := time.Now()
	got := waitTask(t, cl, id)
	if d := time.Since(begin); d > 700*time.Millisecond {
		t.Errorf("the task ended after %v", d)
	}
	res := taskResult(t, cl, id)
	if info, ok := mcpgo.InfoOf(&mcp.CallToolResult{Content: res.Content, StructuredContent: res.StructuredContent, IsError: res.IsError}); got.Status != mcp.TaskStatusCompleted || !ok || info.Code != "timeout" {
		t.Errorf("task %s %s, result %+v, want completed with a timeout result", id, got.Status, res)
	}
}

// TestTaskToolAddedAfterAttach: a task tool registered after Attach runs
// in the chain too (its handler is wrapped in mcp-go's map of task tools,
// tasktools.go): its panic is masked. It fails when an mcp-go upgrade
// renames or retypes the fields the wrapping reads.
func TestTaskToolAddedAfterAttach(t *testing.T) {
	ts := newTaskServer(t)
	ts.s.AddTaskTool(mcp.NewTool("late", mcp.WithTaskSupport(mcp.TaskSupportRequired)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CreateTaskResult, error) { panic(panicText) })
	cl := taskClient(t, ts.s, "http")
	id := createdTaskID(t, callAsTask(t, cl, "late", nil))
	got := waitTask(t, cl, id)
	res := taskResult(t, cl, id)
	if strings.Contains(got.StatusMessage+resultText(res.Content), "kaboom") || !res.IsError {
		t.Fatalf("task %s %q, result %+v: the late tool ran outside the chain", got.Status, got.StatusMessage, res)
	}
	if o := outcomes(ts.waitLines(t, id, 2)); len(o) != 2 || o[1] != "panic" {
		t.Errorf("the task's lines say %v, want task_created then panic", o)
	}
}

// TestTaskEndsWithItsSession: when the session that created a task ends
// (here the stdio client goes away, as at shutdown), the work ends and
// its line says canceled.
func TestTaskEndsWithItsSession(t *testing.T) {
	ts := newTaskServer(t)
	cl := taskClient(t, ts.s, "stdio")
	id := startTask(t, cl, "wait_task", nil)
	_ = cl.Close()
	ts.waitCanceled(t, "the work went on after its session ended")
	if o := outcomes(ts.waitLines(t, id, 2)); len(o) != 2 || o[1] != "canceled" {
		t.Errorf("the task's lines say %v, want task_created then canceled", o)
	}
}

// TestTaskConfirmedAtCreation: a tool the policy wants confirmed is asked
// about at the task's creation; declined, no task is created and the
// handler never runs.
func TestTaskConfirmedAtCreation(t *testing.T) {
	for _, accept := range []bool{false, true} {
		t.Run(map[bool]string{false: "declined", true: "accepted"}[accept], func(t *testing.T) {
			ts := newTaskServerWith(t, []server.ServerOption{server.WithElicitation()}, wrap.WithAuthorization(authz.Policy{
				Public:  []string{"report"},
				Confirm: authz.Confirm{Tools: []string{"report"}},
			}))
			url := (&policyServer{s: ts.s}).serve(t)
			cl := testserver.Connect(t, url, nil, client.WithProtocolVersion(mcp.ProtocolVersion20251125),
				client.WithElicitationHandler(&elicitor{accept: accept}))
			resp := callAsTask(t, cl, "report", map[string]any{"repo": "acme"})
			id := createdTaskID(t, resp)
			if accept != (id != "") {
				t.Fatalf("confirmation %v, answer %s", accept, resp.Result)
			}
			if !accept {
				if n := ts.runs["report"].Load(); n != 0 {
					t.Errorf("the handler ran %d times", n)
				}
				if !strings.Contains(string(resp.Result), "did not allow") {
					t.Errorf("answer %s, want the refusal", resp.Result)
				}
				return
			}
			if got := waitTask(t, cl, id); got.Status != mcp.TaskStatusCompleted {
				t.Errorf("task %s is %s", id, got.Status)
			}
		})
	}
}

// TestOwnChainToolRunsOnceAsTask: a tool with a chain of its own
// (mcpgo.Tool, here with its own result cap) run as a task is served by
// that chain once: one line for its work, its result cut to its own cap.
func TestOwnChainToolRunsOnceAsTask(t *testing.T) {
	logs := &logbuf.Buffer{}
	s := server.NewMCPServer("reports", "1.0.0", server.WithTaskCapabilities(true, true, true))
	w := wrap.New(wrap.WithLogger(logs.Logger()))
	mcpgo.Attach(s, w)
	s.AddTools(mcpgo.Tool(w, mcp.NewTool("dump", mcp.WithTaskSupport(mcp.TaskSupportOptional)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(strings.Repeat("x", 4096)), nil
		}, wrap.WithResultLimit(1024)))
	cl := taskClient(t, s, "http")
	id := createdTaskID(t, callAsTask(t, cl, "dump", nil))
	waitTask(t, cl, id)
	res := taskResult(t, cl, id)
	if text := resultText(res.Content); len(text) > 1200 || !strings.Contains(text, "was cut") {
		t.Errorf("tasks/result has %d bytes, want the tool's own cap of 1024 and a note", len(text))
	}
	ts := &taskServer{logs: logs}
	ts.waitLines(t, id, 2)
	if lines, _ := logs.Find("tool", "dump"); len(lines) != 2 {
		t.Errorf("%d lines for the tool, want its task's creation and its work: %v", len(lines), outcomes(lines))
	}
}

// TestTaskTTLBoundsTheWork: a task's TTL, shorter than its budget, ends its
// work (mcp-go forgets the task then; the work's line says timeout).
func TestTaskTTLBoundsTheWork(t *testing.T) {
	ts := newTaskServer(t)
	cl := taskClient(t, ts.s, "http")
	ttl := int64(150)
	id := createdTaskID(t, callAsTaskTTL(t, cl, "stubborn", nil, &ttl))
	// stubborn takes a second: a success would say the TTL did not bound it.
	if o := outcomes(ts.waitLines(t, id, 2)); len(o) != 2 || o[1] != "timeout" {
		t.Fatalf("the task's lines say %v, want task_created then timeout", o)
	}
}

// TestTaskToolIsWrappedOnce: a tool registered with AddTaskTool was wrapped
// again at each of its task calls (the check that it was wrapped compared
// the code of closures, which inlining changes), so from the second call on
// its work ran through the chain twice, cut by the synchronous timeout,
// logged three lines and more per task, and grew the server's handler by
// one closure a call. Every call's work now runs through the chain once.
func TestTaskToolIsWrappedOnce(t *testing.T) {
	ts := newTaskServer(t, wrap.WithTimeout(50*time.Millisecond))
	cl := taskClient(t, ts.s, "http")
	for i := range 4 {
		id := createdTaskID(t, callAsTask(t, cl, "report", map[string]any{"repo": "acme", "ms": 150}))
		if id == "" {
			t.Fatalf("call %d: no task was created", i+1)
		}
		if got := waitTask(t, cl, id); got.Status != mcp.TaskStatusCompleted {
			t.Fatalf("call %d: task %s is %s (%s), want completed", i+1, id, got.Status, got.StatusMessage)
		}
		if res := taskResult(t, cl, id); res.IsError || resultText(res.Content) != "report of acme" {
			t.Fatalf("call %d: tasks/result %+v, want the report", i+1, res)
		}
		time.Sleep(20 * time.Millisecond) // a third line, if any, comes after the second
		if o := outcomes(ts.taskLines(t, id)); len(o) != 2 || o[0] != "task_created" || o[1] != "success" {
			t.Fatalf("call %d: the task's lines say %v, want task_created then success", i+1, o)
		}
	}
}
