package mcpgo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/policy"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo/internal/listwatch"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo/internal/stdiodrain"
)

// attached is one Wrapper attached to one server.
type attached struct {
	w     *wrap.Wrapper
	serve adapter.Serve // w's chain
	// hooks is the Hooks value the hooks were added to; a server.WithHooks
	// applied later replaces it, which checkHooks repairs.
	mu     sync.Mutex // serialises a repair, and the list watch's registration
	hooks  atomic.Pointer[server.Hooks]
	server *server.MCPServer
	// repaired holds the Done channel of the call during which checkHooks
	// added the hooks again: its after-call hook runs without a
	// before-call one, and the chain has logged it already.
	repaired sync.Map
	tasks    tasks // task.go
	// lists is the list watch (cache.go), registered at the first call
	// after w keeps answers; watchRefused, under mu, when mcp-go refused it.
	lists        atomic.Pointer[listwatch.Watch]
	watchRefused bool
}

// addHooks registers the hooks on the server's Hooks, creating them when
// the server has none.
func (a *attached) addHooks(s *server.MCPServer) {
	h := s.GetHooks()
	if h == nil {
		h = &server.Hooks{}
		server.WithHooks(h)(s)
	}
	a.hooks.Store(h)
	a.server = s
	a.register(h)
}

func (a *attached) register(h *server.Hooks) {
	o := adapter.Observer(a.w)
	// One error hook for both jobs: a server per request pays for each
	// closure and each list it starts.
	h.AddOnError(func(ctx context.Context, id any, m mcp.MCPMethod, msg any, err error) {
		switch m {
		case mcp.MethodResourcesRead, mcp.MethodPromptsGet:
			a.onRPCError(ctx, msg, err)
		case mcp.MethodToolsCall:
			req, _ := msg.(*mcp.CallToolRequest)
			a.onToolError(ctx, o, id, req, err)
		}
	})
	// The hooks of task calls (task.go) share the call hooks' closures.
	h.AddBeforeCallTool(func(ctx context.Context, id any, req *mcp.CallToolRequest) {
		stdiodrain.Began(ctx, id, req)
		if o != nil {
			o.Began(ctx, formatRequestID(id))
		}
		a.beforeTask(ctx, id, req)
	})
	h.AddAfterCallTool(func(ctx context.Context, id any, req *mcp.CallToolRequest, result any) {
		a.afterTask(ctx, id, req, result)
		if o == nil || a.wasRepaired(ctx) {
			return
		}
		answered(ctx, o, nil, id, req, result, nil)
	})
	a.registerTasks(h)
}

// onToolError is the error hook of a tool call mcp-go answered with an
// error: a task's error, a hidden tool's code, and the call's line.
func (a *attached) onToolError(ctx context.Context, o *obs.Observer, id any, req *mcp.CallToolRequest, err error) {
	a.taskError(ctx, req, err)
	var hidden *hiddenTool
	if errors.As(err, &hidden) {
		sendCode(err, mcp.INVALID_PARAMS)
	}
	if o == nil || a.wasRepaired(ctx) {
		return
	}
	answered(ctx, o, adapter.Policy(a.w), id, req, nil, err)
}

// wasRepaired reports, once, whether ctx's call is the one during which
// checkHooks added the hooks again.
func (a *attached) wasRepaired(ctx context.Context) bool {
	_, ok := a.repaired.LoadAndDelete(ctx.Done())
	return ok
}

// checkHooks adds the hooks again when the server's Hooks were replaced
// after Option ran (a server.WithHooks later in the list), and says so.
func (a *attached) checkHooks(ctx context.Context) {
	if a.server == nil {
		return
	}
	s := server.ServerFromContext(ctx)
	if s == nil || s != a.server {
		return
	}
	h := s.GetHooks()
	if h == a.hooks.Load() { // every call but the first after a WithHooks
		return
	}
	h, replaced := a.replaceHooks(s, h)
	if !replaced {
		return
	}
	if done := ctx.Done(); done != nil {
		a.repaired.Store(done, struct{}{})
	}
	a.register(h)
	if o := adapter.Observer(a.w); o != nil {
		o.Log(ctx, slog.LevelWarn, "mcpwrap's hooks were replaced by a later server.WithHooks and were added again; "+
			"calls mcp-go answered before this one were not logged (use mcpgo.Attach after NewMCPServer)")
	}
}

// replaceHooks records h, the server's hooks now, as the ones ours are
// in; replaced is false when another call did so first. Nil hooks are
// replaced by new ones set on s.
func (a *attached) replaceHooks(s *server.MCPServer, h *server.Hooks) (_ *server.Hooks, replaced bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if h == a.hooks.Load() {
		return h, false
	}
	if h == nil {
		h = &server.Hooks{}
		server.WithHooks(h)(s)
	}
	a.hooks.Store(h)
	return h, true
}

// answered closes what Began opened: a call the chain never saw (mcp-go
// answered it before any middleware) is recorded here.
// A tool that exists but was answered as unknown was hidden by e, the
// policy (authorizeLists' filter): its line carries the decision.
func answered(ctx context.Context, o *obs.Observer, e *policy.Engine, id any, req *mcp.CallToolRequest, result any, err error) {
	u, seen := o.Settle(ctx)
	if seen {
		return // the chain logged it
	}
	r := unseenRequest(ctx, id, req)
	rep := unseenReport(result, err)
	notFound := errors.Is(err, server.ErrToolNotFound)
	if e != nil && notFound && req != nil {
		if info := (lookup{}).Tool(ctx, r.Name); info.Known {
			c := identify(ctx, nil)
			rep.Authz = e.Audit(e.Decide(ctx, c, authz.Request{Method: policy.ToolsCall, Name: r.Name, Annotations: info.Annotations}), c)
		}
	}
	o.AnsweredUnseen(ctx, u, &r, rep, notFound)
}

// unseenRequest is the tool call req (nil if mcp-go had none) with the id
// id, as the chain would have seen it.
func unseenRequest(ctx context.Context, id any, req *mcp.CallToolRequest) call.Request {
	r := call.Request{Kind: call.Tool}
	if req != nil {
		r.Name, r.Args, r.Raw, r.Header = req.Params.Name, req.Params.Arguments, req.Params.RawArguments, req.Header
		if req.Params.Meta != nil {
			r.Meta = req.Params.Meta.AdditionalFields
		}
	}
	r.Protocol = server.RequestProtocolVersion(ctx)
	if s := server.ClientSessionFromContext(ctx); s != nil {
		r.Session = s.SessionID()
	}
	r.RequestID = formatRequestID(id)
	return r
}

// unseenReport describes mcp-go's own answer: a JSON-RPC error, an
// input-validation isError result, or a result from a handler nothing
// observed.
func unseenReport(result any, err error) obs.Report {
	if err != nil {
		code := mcp.INTERNAL_ERROR
		var rpc interface{ ToJSONRPCError() mcp.JSONRPCError }
		if errors.As(err, &rpc) {
			code = rpc.ToJSONRPCError().Error.Code
		}
		return obs.Report{Outcome: obs.OutcomeProtocolError, Err: errs.Wrap(codeOfRPC(err, code), err, ""), JSONRPCCode: code}
	}
	res, _ := result.(*mcp.CallToolResult)
	switch {
	case res == nil:
		return obs.Report{Outcome: obs.OutcomeSuccess}
	case res.IsError:
		// Before the chain, an isError result is mcp-go's input schema
		// validation.
		r := toolResult{R: res}
		return obs.Report{Outcome: obs.CodeOutcome(errs.InvalidArgument), Result: r,
			Err: errs.Wrap(errs.InvalidArgument, errors.New(firstText(r)), "")}
	}
	return obs.Report{Outcome: obs.OutcomeSuccess, Result: toolResult{R: res}}
}

func firstText(r toolResult) string {
	if t := r.Text(); t != "" {
		return t
	}
	return "error result"
}

func codeOfRPC(err error, code int) errs.Code {
	switch {
	case errors.Is(err, server.ErrToolNotFound):
		return errs.NotFound
	case code == mcp.INVALID_PARAMS, code == mcp.INVALID_REQUEST, code == mcp.PARSE_ERROR, code == mcp.METHOD_NOT_FOUND:
		return errs.InvalidArgument
	}
	return errs.Internal
}

// maxIDBytes caps a client-chosen request id.
const maxIDBytes = 256

func formatRequestID(id any) string {
	switch v := id.(type) {
	case nil:
		return ""
	case mcp.RequestId:
		if v.IsNil() {
			return ""
		}
		return formatRequestID(v.Value())
	case *mcp.RequestId:
		if v == nil {
			return ""
		}
		return formatRequestID(*v)
	case string:
		if len(v) > maxIDBytes {
			v = v[:maxIDBytes]
		}
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		if v == float64(int64(v)) {
			return strconv.FormatInt(int64(v), 10)
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprint(id)
}
