package mcpgo

import (
	"context"
	"errors"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/errbase"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/mcpgoerr"
	"github.com/mcpwrap/mcpwrap/internal/paging"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo/internal/content"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo/internal/stdiodrain"
)

// Attach wraps every tool, resource and prompt handler of s with w's chain,
// outermost: before any middleware the server registered itself, whether
// it did so before or after this call. It also adds the hooks that give
// the requests mcp-go answers before any handler (an unknown tool,
// unparsable params, its own schema validation) their one log line and
// span, the hook that sends resource and prompt errors with their JSON-RPC
// code and data, and, when w observes, trace propagation from params._meta
// and HTTP headers. Call it once per server, after server.NewMCPServer
// (a server.WithHooks applied later replaces the hooks; the middleware
// notices at the first tool call and adds them again, saying so in a log
// line). Attaching allocates a few small objects and starts nothing;
// what must outlive the server lives in w. A nil w means wrap.New().
func Attach(s *server.MCPServer, w *wrap.Wrapper) {
	w = orNew(w)
	a := &attached{w: w, serve: adapter.Chain(w)}
	s.Use(a.middleware())
	// One chain value for the three middlewares: each lookup allocates.
	server.WithResourceHandlerMiddleware(resourceMiddleware(a))(s)
	server.WithPromptHandlerMiddleware(promptMiddleware(a.serve))(s)
	outermost(s)
	a.addHooks(s)
	authorizeLists(s, w, a)
	if adapter.Observer(w) != nil {
		server.WithMetaPropagator(MetaPropagator(w))(s)
		server.WithPropagator(HTTPPropagator(w))(s)
	}
}

// orNew is what every function taking a *wrap.Wrapper makes of nil:
// wrap.New().
func orNew(w *wrap.Wrapper) *wrap.Wrapper {
	if w == nil {
		return wrap.New()
	}
	return w
}

func (a *attached) middleware() server.ToolHandlerMiddleware {
	w := a.w
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		// mcp-go rebuilds the chain on every call, so this must stay one
		// closure.
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			a.checkHooks(ctx)
			a.listsChanged(ctx)
			if res, ok, err := a.taskWork(ctx, req, next); ok {
				return res, err
			}
			ctx = stdiodrain.WithRead(ctx)
			if adapter.Own(w, req.Params.Name) {
				// The tool's own handler (Tool, Typed) must not run the
				// chain a second time.
				ctx = context.WithValue(ctx, servedKey{}, w)
			}
			return serveTool(ctx, a.serve, req, next)
		}
	}
}

// servedKey marks a call the attached Wrapper's chain serves, for the
// handlers Tool builds: they must not run the chain a second time.
type servedKey struct{}

// toolCall is one tools/call on its way through the chain: the neutral
// request and what the handler needs. They are pooled: a call allocates
// none unless a timeout abandoned its handler, which keeps its toolCall.
type toolCall struct {
	req  call.Request
	m    mcp.CallToolRequest
	next server.ToolHandlerFunc
}

var toolCalls = sync.Pool{New: func() any { return new(toolCall) }}

// serveTool runs one tools/call through serve (a Wrapper's chain or one
// tool's).
func serveTool(ctx context.Context, serve adapter.Serve, req mcp.CallToolRequest, next server.ToolHandlerFunc) (*mcp.CallToolResult, error) {
	tc := toolCalls.Get().(*toolCall)
	tc.fill(ctx, req, next)
	a := serve(ctx, &tc.req, handleTool)
	if !a.Detached {
		*tc = toolCall{}
		toolCalls.Put(tc)
	}
	return toolAnswer(a)
}

func (tc *toolCall) fill(ctx context.Context, req mcp.CallToolRequest, next server.ToolHandlerFunc) {
	tc.m, tc.next = req, next
	tc.req = toolRequest(ctx, &req)
	tc.req.Lookup, tc.req.Rounds, tc.req.Decode, tc.req.SDK = lookup{}, rounds, content.DecodeTool, tc
}

// toolRequest is what the chain sees of a tools/call, a task's or not.
func toolRequest(ctx context.Context, req *mcp.CallToolRequest) call.Request {
	r := call.Request{
		Kind:     call.Tool,
		Name:     req.Params.Name,
		Args:     req.Params.Arguments,
		Raw:      req.Params.RawArguments,
		Header:   req.Header,
		Protocol: server.RequestProtocolVersion(ctx),
		Identify: identify,
		Ask:      ask,
		Unknown:  unknownName,
	}
	if req.Params.Meta != nil {
		r.Meta = req.Params.Meta.AdditionalFields
	}
	if s := server.ClientSessionFromContext(ctx); s != nil {
		r.Session = s.SessionID()
	}
	return r
}

// handleTool runs the mcp-go handler of a toolCall and turns what mcp-go's
// own helpers report into what errs knows: their argument errors (Require*,
// BindArguments, the typed handlers' binding results) become InvalidArgument,
// mcp-go's sentinels are marked for errs, and a URL elicitation passes
// through as the protocol answer mcp-go makes of it.
func handleTool(ctx context.Context, r *call.Request) (call.Result, error) {
	tc := r.SDK.(*toolCall)
	res, err := tc.next(ctx, tc.m)
	if err != nil {
		if p, ok := recovered(err, "tool", tc.m.Params.Name); ok {
			panic(p)
		}
		return resultOf(res), toolError(ctx, err, tc.m)
	}
	if res != nil && res.IsError {
		if e, ok := argumentResult(res, tc.m); ok {
			return nil, e
		}
	}
	return resultOf(res), nil
}

func toolError(ctx context.Context, err error, req mcp.CallToolRequest) (out error) {
	// A broken error (a typed nil, an Error method that panics) is left to
	// the chain, which describes it; reading it here would panic.
	defer func() {
		if recover() != nil {
			out = err
		}
	}()
	if errbase.IsNil(err) {
		return err
	}
	if isURLElicitation(err) {
		return urlElicitation(ctx, err)
	}
	var e *errs.Error
	if errors.As(err, &e) {
		return err
	}
	err = mcpgoerr.Mark(err)
	if errs.From(err).Code() == errs.Internal {
		if a, ok := argumentError(err, req); ok {
			return a
		}
	}
	return err
}

// urlElicitation is a URL elicitation error, which mcp-go answers itself:
// -32042 for clients before 2026-07-28, -32603 for the others, which
// learn of it as an input request.
func urlElicitation(ctx context.Context, err error) error {
	code := mcp.URL_ELICITATION_REQUIRED
	if mcp.IsModernProtocol(server.RequestProtocolVersion(ctx)) {
		code = mcp.INTERNAL_ERROR
	}
	return call.ProtocolError(err, code, errs.Internal)
}

func isURLElicitation(err error) bool {
	var v mcp.URLElicitationRequiredError
	var ptr *mcp.URLElicitationRequiredError
	return errors.As(err, &v) || errors.As(err, &ptr)
}

// toolAnswer turns the chain's answer into what mcp-go sends.
func toolAnswer(a call.Answer) (*mcp.CallToolResult, error) {
	switch {
	case a.Protocol != nil:
		return nil, a.Protocol
	case a.Error != nil:
		return mcpgoerr.Result(a.Error), nil
	case a.Result != nil:
		return a.Result.(toolResult).R, nil
	}
	//mcpwrap:ignore masked unreachable: the chain always answers
	return nil, errors.New("mcpwrap: empty answer")
}

// InfoOf reads the errs.Info in an mcp-go result, whether it was built in
// process or decoded from the wire by an mcp-go client.
func InfoOf(res *mcp.CallToolResult) (errs.Info, bool) {
	if res == nil || !res.IsError {
		return errs.Info{}, false
	}
	return errmap.InfoOf(res.StructuredContent)
}

// MarkError marks mcp-go's error values (an upstream session that ended, an
// authorization required, a transport failure) with the failures errs
// knows, for upstream.WithErrors when a handler keeps an mcp-go client.
func MarkError(err error) error { return mcpgoerr.Mark(err) }

// lookup finds a tool's annotations where mcp-go finds its handler: the
// session's own tools (AddSessionTool) first, then the server's.
type lookup struct{}

func (lookup) Tool(ctx context.Context, name string) call.Info {
	if ss, ok := server.ClientSessionFromContext(ctx).(server.SessionWithTools); ok {
		if st, ok := ss.GetSessionTools()[name]; ok {
			return infoOf(st.Tool)
		}
	}
	s := server.ServerFromContext(ctx)
	if s == nil {
		return call.Info{}
	}
	st := s.GetTool(name)
	if st == nil {
		return call.Info{}
	}
	return infoOf(st.Tool)
}

func infoOf(t mcp.Tool) call.Info {
	info := call.Info{Annotations: toolAnnotations(t), Output: t.RawOutputSchema != nil || t.OutputSchema.Type != ""}
	if t.RawInputSchema != nil {
		info.Paging = paging.Param(t.RawInputSchema)
	} else if len(t.InputSchema.Properties) > 0 {
		info.Paging = paging.Param(t.InputSchema)
	}
	return info
}

func isTrue(b *bool) bool { return b != nil && *b }
