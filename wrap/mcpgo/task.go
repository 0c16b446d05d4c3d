package mcpgo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
)

// MCP tasks on mcp-go. A tools/call with a task param is routed by mcp-go
// to handleTaskAugmentedToolCall, which answers a CreateTaskResult at once
// and runs the work on a goroutine: a tool registered with AddTaskTool with
// no middleware at all, a regular tool with execution.taskSupport through
// the tool middlewares, both in a context that ends as soon as the
// creating request is answered. So:
//
//   - the before-call hook decides the call at its creation, with the
//     layers of the chain that decide whether a call runs (authorization
//     and Confirm, the rate limit, the bulkhead, the per-caller bound of
//     tasks). A refused call is sent, in the same request, to a tool of
//     ours that answers the refusal as the call would be answered in place
//     (refusedTool); mcp-go creates no task. An admitted one carries a
//     token in its params._meta to the work.
//   - the after-call hook reports the task's id (the creation's line), the
//     error hook a task mcp-go did not create after all.
//   - the work runs through the inner layers of the chain, with the task's
//     own budget, in a context that does not end with the request
//     (context.WithoutCancel) but with tasks/cancel (the after-cancel hook)
//     and the end of its session (the unregister hook): a task tool's
//     handler wrapped in mcp-go's map (tasktools.go), a regular tool's in
//     the middleware.

// taskMetaKey carries a task's token in params._meta from the hook that
// admitted it to its work; refusedMetaKey carries a refusal's.
const (
	taskMetaKey    = "io.mcpwrap/task"
	refusedMetaKey = "io.mcpwrap/refused"
)

// refusedTool is the tool a refused task call is sent to, so that mcp-go
// answers it in place; it is registered the first time a call is refused,
// left out of every list and unknown to any call but those.
const refusedTool = "mcpwrap.refused_task"

// tasks are the tasks of one attached server, by token and by id.
type tasks struct {
	byToken sync.Map // token → *liveTask
	byID    sync.Map // task id → *liveTask
	refused sync.Map // token → call.Answer
	// refusing holds the Done channel of the requests being answered by
	// refusedTool, which only they may call.
	refusing    sync.Map
	refusalTool sync.Once
	// wrapped holds the closures taskHandler made and wrapTaskTool
	// installed, by identity (funcID): one a task tool.
	wrapped sync.Map
}

type liveTask struct {
	t       adapter.Task
	tool    mcp.Tool
	session string
	// outside says the work runs outside the chain: a task tool whose
	// handler could not be wrapped (tasktools.go).
	outside bool
	// requestID is the creating request's, for the work's line too.
	requestID string
	mu        sync.Mutex
	id        string
}

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// metaValue is params._meta[key] as a string.
func metaValue(m *mcp.Meta, key string) string {
	if m == nil {
		return ""
	}
	s, _ := m.AdditionalFields[key].(string)
	return s
}

func setMeta(req *mcp.CallToolRequest, key, value string) {
	m := &mcp.Meta{AdditionalFields: map[string]any{key: value}}
	if old := req.Params.Meta; old != nil {
		m.ProgressToken = old.ProgressToken
		for k, v := range old.AdditionalFields {
			if _, ok := m.AdditionalFields[k]; !ok {
				m.AdditionalFields[k] = v
			}
		}
	}
	req.Params.Meta = m
}

// withoutOurMeta returns req without our keys in params._meta, for the
// handler: they are the adapter's business.
func withoutOurMeta(req mcp.CallToolRequest) mcp.CallToolRequest {
	m := req.Params.Meta
	if m == nil {
		return req
	}
	_, t := m.AdditionalFields[taskMetaKey]
	_, r := m.AdditionalFields[refusedMetaKey]
	if !t && !r {
		return req
	}
	c := &mcp.Meta{ProgressToken: m.ProgressToken, AdditionalFields: make(map[string]any, len(m.AdditionalFields))}
	for k, v := range m.AdditionalFields {
		if k != taskMetaKey && k != refusedMetaKey {
			c.AdditionalFields[k] = v
		}
	}
	req.Params.Meta = c
	return req
}

// beforeTask is the before-call hook that decides a task call at its
// creation. It leaves every other call alone, but for removing our keys
// from a client's params._meta.
func (a *attached) beforeTask(ctx context.Context, id any, req *mcp.CallToolRequest) {
	if req == nil {
		return
	}
	if m := req.Params.Meta; m != nil && (m.AdditionalFields[taskMetaKey] != nil || m.AdditionalFields[refusedMetaKey] != nil) {
		*req = withoutOurMeta(*req) // a client's own never counts
	}
	if req.Params.Task == nil {
		return
	}
	s := server.ServerFromContext(ctx)
	tool, outside, ok := a.taskToolFor(ctx, s, req.Params.Name)
	if !ok {
		return // mcp-go answers it, and the error hook logs it
	}
	r := a.taskRequest(ctx, req, tool)
	t, ans, ok := adapter.StartTask(ctx, a.w, r, taskTTL(req.Params.Task.TTL))
	if !ok {
		a.refuse(ctx, s, req, ans)
		return
	}
	tok := newToken()
	a.tasks.byToken.Store(tok, &liveTask{t: t, tool: tool, session: r.Session, outside: outside, requestID: formatRequestID(id)})
	setMeta(req, taskMetaKey, tok)
}

// taskTTL is the TTL a client asked for, in milliseconds; 0 (the
// default) if it asked for none or for one out of range.
func taskTTL(p *int64) time.Duration {
	if p != nil && *p > 0 && *p < int64(math.MaxInt64/time.Millisecond) {
		return time.Duration(*p) * time.Millisecond
	}
	return 0
}

// taskToolFor returns the tool a task call runs, when mcp-go will run it as
// a task: a session's tool or the server's with execution.taskSupport, or
// a task tool (whose handler it wraps the first time). When mcp-go's task
// tools cannot be read (tasktools.go), any other name may be one: it is
// decided all the same, and outside says its work will run outside the
// chain.
func (a *attached) taskToolFor(ctx context.Context, s *server.MCPServer, name string) (tool mcp.Tool, outside, ok bool) {
	if ss, ok := server.ClientSessionFromContext(ctx).(server.SessionWithTools); ok {
		if st, ok := ss.GetSessionTools()[name]; ok {
			return st.Tool, false, runsAsTask(st.Tool)
		}
	}
	if s == nil {
		return mcp.Tool{}, false, false
	}
	if st := s.GetTool(name); st != nil {
		return st.Tool, false, runsAsTask(st.Tool)
	}
	if !taskToolFields().ok {
		return mcp.Tool{Name: name}, true, true
	}
	tt, ok := wrapTaskTool(s, name, a.isTaskWrapper, a.wrapTask)
	return tt.Tool, false, ok && runsAsTask(tt.Tool)
}

// runsAsTask reports whether t supports execution as a task.
func runsAsTask(t mcp.Tool) bool {
	return t.Execution != nil && (t.Execution.TaskSupport == mcp.TaskSupportOptional || t.Execution.TaskSupport == mcp.TaskSupportRequired)
}

// taskRequest is a task call as the chain sees it.
func (a *attached) taskRequest(ctx context.Context, req *mcp.CallToolRequest, tool mcp.Tool) *call.Request {
	r := toolRequest(ctx, req)
	r.Tool = infoOf(tool)
	return &r
}

// refuse sends a refused task call to refusedTool, whose answer is ans:
// what the call would get in place. mcp-go then creates no task.
func (a *attached) refuse(ctx context.Context, s *server.MCPServer, req *mcp.CallToolRequest, ans call.Answer) {
	// Without a server to add the tool to, or a Done channel to mark the
	// request with, the call is still taken off the task path: mcp-go then
	// answers it as an unknown tool.
	if s != nil {
		a.tasks.refusalTool.Do(func() {
			a.addRefusedToolFilter(s)
			s.AddTool(mcp.NewTool(refusedTool, mcp.WithDescription("mcpwrap answers a refused task call through this tool; it cannot be called")),
				func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return nil, fmt.Errorf("tool '%s' not found: %w", refusedTool, server.ErrToolNotFound)
				})
		})
	}
	tok := newToken()
	if ctx.Done() != nil {
		a.tasks.refused.Store(tok, ans)
		a.tasks.refusing.Store(ctx.Done(), struct{}{})
	}
	req.Params.Name, req.Params.Task, req.Params.Arguments, req.Params.RawArguments = refusedTool, nil, nil, nil
	setMeta(req, refusedMetaKey, tok)
}

// mayCallRefusedTool is the tool filter's test: refusedTool is in no list
// and answers only the requests refuse sent to it.
func (a *attached) mayCallRefusedTool(ctx context.Context) bool {
	if ctx.Done() == nil {
		return false
	}
	_, ok := a.tasks.refusing.Load(ctx.Done())
	return ok
}

// addRefusedToolFilter hides refusedTool.
func (a *attached) addRefusedToolFilter(s *server.MCPServer) {
	server.WithToolFilter(func(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
		for i := range tools {
			if tools[i].Name == refusedTool && !a.mayCallRefusedTool(ctx) {
				out := make([]mcp.Tool, 0, len(tools)-1)
				out = append(out, tools[:i]...)
				return append(out, tools[i+1:]...)
			}
		}
		return tools
	})(s)
}

// answerRefused is the middleware's answer to a call refuse sent to
// refusedTool.
func (a *attached) answerRefused(req mcp.CallToolRequest) (*mcp.CallToolResult, bool, error) {
	if req.Params.Name != refusedTool {
		return nil, false, nil
	}
	if v, ok := a.tasks.refused.LoadAndDelete(metaValue(req.Params.Meta, refusedMetaKey)); ok {
		res, err := toolAnswer(v.(call.Answer))
		return res, true, err
	}
	return nil, true, fmt.Errorf("tool '%s' not found: %w", refusedTool, server.ErrToolNotFound)
}

// refused forgets a refusal once its request is answered (the middleware
// took its answer, or a tool filter of the server's dropped refusedTool).
func (a *attached) refused(ctx context.Context, tok string) {
	a.tasks.refused.Delete(tok)
	if ctx.Done() != nil {
		a.tasks.refusing.Delete(ctx.Done())
	}
}

// afterTask is the after-call hook: a task call's task exists.
func (a *attached) afterTask(ctx context.Context, _ any, req *mcp.CallToolRequest, result any) {
	if req == nil {
		return
	}
	if tok := metaValue(req.Params.Meta, refusedMetaKey); tok != "" {
		a.refused(ctx, tok)
		return
	}
	tok := metaValue(req.Params.Meta, taskMetaKey)
	v, ok := a.tasks.byToken.Load(tok)
	if tok == "" || !ok {
		return
	}
	lt := v.(*liveTask)
	created, ok := result.(*mcp.CreateTaskResult)
	if !ok || created == nil {
		a.tasks.byToken.Delete(tok)
		lt.t.NotCreated(ctx, call.ProtocolError(errors.New("mcp-go answered the call without creating its task"), mcp.INTERNAL_ERROR, errs.Internal))
		return
	}
	a.created(ctx, tok, lt, created.Task.TaskId)
}

// created records that the task lt, known by the token tok, was created
// with the id id; a task whose work runs outside the chain is let go.
func (a *attached) created(ctx context.Context, tok string, lt *liveTask, id string) {
	lt.mu.Lock()
	lt.id = id
	lt.mu.Unlock()
	lt.t.Created(ctx, id)
	if lt.outside {
		a.tasks.byToken.Delete(tok)
		lt.t.Release()
		return
	}
	a.tasks.byID.Store(id, lt)
}

// taskError is the error hook's part for task calls: mcp-go answered a
// call the chain admitted with an error (its limit of concurrent tasks, a
// tool filter) and created no task.
func (a *attached) taskError(ctx context.Context, req *mcp.CallToolRequest, err error) {
	if req == nil {
		return
	}
	if tok := metaValue(req.Params.Meta, refusedMetaKey); tok != "" {
		a.refused(ctx, tok)
		return
	}
	tok := metaValue(req.Params.Meta, taskMetaKey)
	if tok == "" {
		return
	}
	if v, ok := a.tasks.byToken.LoadAndDelete(tok); ok {
		code := mcp.INTERNAL_ERROR
		var rpc interface{ ToJSONRPCError() mcp.JSONRPCError }
		if errors.As(err, &rpc) {
			code = rpc.ToJSONRPCError().Error.Code
		}
		v.(*liveTask).t.NotCreated(ctx, call.ProtocolError(err, code, codeOfRPC(err, code)))
	}
}

// cancelTask is the after-cancel hook: mcp-go marked the task cancelled;
// its work ends.
func (a *attached) cancelTask(_ context.Context, _ any, req *mcp.CancelTaskRequest, _ *mcp.CancelTaskResult) {
	if req == nil {
		return
	}
	if v, ok := a.tasks.byID.Load(req.Params.TaskId); ok {
		v.(*liveTask).t.Cancel()
	}
}

// sessionEnded is the unregister hook: the work of the session's tasks
// ends (the client deleted it, it idled out, the server shut down).
func (a *attached) sessionEnded(_ context.Context, s server.ClientSession) {
	if s == nil || s.SessionID() == "" {
		return
	}
	id := s.SessionID()
	a.tasks.byToken.Range(func(_, v any) bool {
		if lt := v.(*liveTask); lt.session == id {
			lt.t.Cancel()
		}
		return true
	})
}

// registerTasks adds the hooks that end a task's work to h: tasks/cancel
// and the end of its session. (register's call hooks call beforeTask,
// afterTask and taskError.)
func (a *attached) registerTasks(h *server.Hooks) {
	h.AddAfterCancelTask(func(ctx context.Context, id any, req *mcp.CancelTaskRequest, res *mcp.CancelTaskResult) {
		a.cancelTask(ctx, id, req, res)
	})
	h.AddOnUnregisterSession(func(ctx context.Context, s server.ClientSession) { a.sessionEnded(ctx, s) })
}

// taskWork is the middleware's part for tasks: the work of a regular tool
// mcp-go runs as a task, and the answer to a call refuse sent to
// refusedTool. ok is false for any other call.
func (a *attached) taskWork(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc) (*mcp.CallToolResult, bool, error) {
	if res, ok, err := a.answerRefused(req); ok {
		return res, true, err
	}
	tok := metaValue(req.Params.Meta, taskMetaKey)
	if tok == "" {
		return nil, false, nil
	}
	v, ok := a.tasks.byToken.Load(tok)
	if !ok {
		return nil, false, nil
	}
	if adapter.Own(a.w, req.Params.Name) {
		ctx = context.WithValue(ctx, servedKey{}, a.w) // as the middleware does
	}
	tc := new(toolCall) // not pooled: the work may outlive its answer
	tc.fill(ctx, withoutOurMeta(req), next)
	tc.req.Tool = infoOf(v.(*liveTask).tool)
	ans, _, err := a.runTask(ctx, tok, &tc.req, handleTool)
	if err != nil {
		return nil, true, err
	}
	res, err := toolAnswer(ans)
	return res, true, err
}

// runTask runs the work of the task tok names with h, and forgets the
// task; ok is false when tok names none.
func (a *attached) runTask(ctx context.Context, tok string, r *call.Request, h call.Handler) (call.Answer, bool, error) {
	v, ok := a.tasks.byToken.Load(tok)
	if !ok {
		return call.Answer{}, false, nil
	}
	lt := v.(*liveTask)
	r.RequestID = lt.requestID
	defer func() {
		a.tasks.byToken.Delete(tok)
		lt.mu.Lock()
		id := lt.id
		lt.mu.Unlock()
		if id != "" {
			a.tasks.byID.Delete(id)
		}
	}()
	// mcp-go ends the work's context as soon as the creating request is
	// answered (on every transport): the work keeps its values but not
	// that end; tasks/cancel and the session's end reach it through
	// Cancel.
	ans, err := lt.t.Run(context.WithoutCancel(ctx), r, h)
	return ans, true, err
}

// taskHandler wraps a task tool's handler: its work runs through the
// inner layers of the chain.
func (a *attached) taskHandler(next server.TaskToolHandlerFunc) server.TaskToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
		tok := metaValue(req.Params.Meta, taskMetaKey)
		req = withoutOurMeta(req)
		h := func(ctx context.Context, _ *call.Request) (call.Result, error) {
			res, err := next(ctx, req)
			if err != nil {
				return nil, toolError(ctx, err, req)
			}
			if res == nil {
				return nil, nil
			}
			return toolResult{R: &mcp.CallToolResult{Result: res.Result, Content: res.Content,
				StructuredContent: res.StructuredContent, IsError: res.IsError}}, nil
		}
		tool := mcp.Tool{Name: req.Params.Name}
		if v, ok := a.tasks.byToken.Load(tok); ok {
			tool = v.(*liveTask).tool
		}
		ans, ok, err := a.runTask(ctx, tok, a.taskRequest(ctx, &req, tool), h)
		if !ok {
			// No hook admitted it (the hooks were replaced): the chain
			// serves it as a call answered in place.
			ans = a.serve(ctx, a.taskRequest(ctx, &req, tool), h)
		}
		if err != nil {
			return nil, err
		}
		res, err := toolAnswer(ans)
		if err != nil || res == nil {
			return nil, err
		}
		return &mcp.CreateTaskResult{Result: res.Result, Content: res.Content, StructuredContent: res.StructuredContent, IsError: res.IsError}, nil
	}
}

// isTaskWrapper reports whether h is a closure wrapTaskTool installed.
// Not by its code: every closure of one function literal shares it, and
// inlining gives a literal other copies, so a check by code told a
// wrapped handler from an unwrapped one wrongly (TestTaskToolIsWrappedOnce).
func (a *attached) isTaskWrapper(h server.TaskToolHandlerFunc) bool {
	_, ok := a.tasks.wrapped.Load(funcID(h))
	return ok
}

// wrapTask is taskHandler for wrapTaskTool, remembering the closure it
// makes.
func (a *attached) wrapTask(next server.TaskToolHandlerFunc) server.TaskToolHandlerFunc {
	h := a.taskHandler(next)
	a.tasks.wrapped.Store(funcID(h), struct{}{})
	return h
}
