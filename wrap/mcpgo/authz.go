package mcpgo

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/policy"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo/internal/content"
)

// identify is who calls: the Caller a verifier in front of mcp-go's HTTP
// handler put in the request's context (authz.RequireBearer, NewHTTPServer
// with Auth), or the process owner ServeStdio put there; on a session that
// is not HTTP (mcp-go's own server.ServeStdio, an in-process client), the
// process owner too. Anyone else is anonymous.
func identify(ctx context.Context, _ *call.Request) authz.Caller {
	if c, ok := authz.FromContext(ctx); ok {
		return c
	}
	if local(server.ClientSessionFromContext(ctx)) {
		return policy.ProcessOwner()
	}
	return authz.Caller{}
}

// local reports whether s is a session no network is between: mcp-go's
// in-process session, or its stdio session, the one session type with a
// SetWriter method (mcp-go v1.2.1; TestStdioCallerIsTheProcessOwnerOnMCPGo/plain
// fails if an upgrade changes that, and a request then is anonymous:
// granted nothing, never more).
func local(s server.ClientSession) bool {
	switch s.(type) {
	case *server.InProcessSession:
		return true
	case interface{ SetWriter(io.Writer) }:
		return true
	}
	return false
}

// unknownName is mcp-go's own answer to a name it does not know, word for
// word: a caller may not learn that a hidden tool, prompt or resource
// exists.
func unknownName(r *call.Request) error {
	switch r.Kind {
	case call.Resource:
		code := mcp.RESOURCE_NOT_FOUND // resourceNotFoundCode's choice, per protocol
		if r.Modern {
			code = mcp.INVALID_PARAMS
		}
		return call.ProtocolError(&hiddenResource{uri: r.Name, code: code}, code, errs.NotFound)
	case call.Prompt:
		return call.ProtocolError(fmt.Errorf("prompt '%s' not found: %w", r.Name, server.ErrPromptNotFound),
			mcp.INVALID_PARAMS, errs.NotFound)
	}
	return call.ProtocolError(&hiddenTool{name: r.Name}, mcp.INVALID_PARAMS, errs.NotFound)
}

// hiddenTool is mcp-go's answer to a tool it does not know, for a tool the
// chain hides (mcp-go's list filter hides most before the call; a Check
// that panics only for the call is hidden by the chain): mcp-go sends a
// tool handler's error as -32603, so the error hook gives it -32602, the
// code mcp-go gives an unknown tool.
type hiddenTool struct{ name string }

func (h *hiddenTool) Error() string {
	return fmt.Sprintf("tool '%s' not found: %v", h.name, server.ErrToolNotFound)
}

func (h *hiddenTool) Unwrap() error { return server.ErrToolNotFound }

// ask asks the user through MCP elicitation (elicitation/create) whether
// the call may run. A client that did not declare the capability, or a
// session that cannot send requests to its client (stateless HTTP),
// cannot be asked: Unsupported. A 2026-07-28 client learns of the question
// from an input_required result instead (rounds.Ask), and is never asked
// here.
func ask(ctx context.Context, _ *call.Request, msg string) (call.Reply, error) {
	s := server.ServerFromContext(ctx)
	sess := server.ClientSessionFromContext(ctx)
	if s == nil || sess == nil {
		return call.Unsupported, nil
	}
	if ci, ok := sess.(server.SessionWithClientInfo); ok && ci.GetClientCapabilities().Elicitation == nil {
		return call.Unsupported, nil
	}
	res, err := s.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{Message: msg, RequestedSchema: call.ConfirmSchema}})
	switch {
	case errors.Is(err, server.ErrElicitationNotSupported), errors.Is(err, server.ErrServerInitiatedRequestUnsupported),
		errors.Is(err, server.ErrNoActiveSession):
		return call.Unsupported, nil
	case err != nil:
		return call.Cancelled, err
	}
	return content.Reply(res.Action, res.Content), nil
}

// authorizeLists makes mcp-go's lists follow w's policy: tools and prompts
// through its own filters (which it applies to calls too, so a hidden tool
// is answered exactly as an unknown one), resources and templates by the
// hooks after their lists.
func authorizeLists(s *server.MCPServer, w any, a *attached) {
	e := adapter.Policy(w)
	if e == nil {
		return
	}
	// The filters see what the server registered, a list's or a call's:
	// what the policy denies to every caller is warned of there, once.
	o := adapter.Observer(w)
	server.WithToolFilter(toolFilter(e, o, a))(s)
	server.WithPromptFilter(promptFilter(e, o))(s)
	authorizeCompletion(s, e)
	warnRegistered(s, e, o)
	h := s.GetHooks()
	if h == nil {
		h = &server.Hooks{}
		server.WithHooks(h)(s)
	}
	privateLists(s, h, o)
	guardLateCompletion(s, h, e, o)
	authorizeSubscriptions(h, e)
	filterResourceLists(h, e, o)
}

// toolFilter is the tools/list and tools/call filter of e's policy.
func toolFilter(e *policy.Engine, o *obs.Observer, a *attached) server.ToolFilterFunc {
	return func(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
		c := identify(ctx, nil)
		visible := func(t *mcp.Tool) bool {
			if t.Name == refusedTool { // the tool filter of task.go decides
				return a.mayCallRefusedTool(ctx)
			}
			return toolVisible(ctx, e, o, c, t)
		}
		if len(tools) == 1 { // a call's check, or a one-tool list: no copy
			if visible(&tools[0]) {
				return tools
			}
			return nil
		}
		out := make([]mcp.Tool, 0, len(tools))
		for i := range tools {
			if visible(&tools[i]) {
				out = append(out, tools[i])
			}
		}
		return out
	}
}

// toolVisible reports whether c may see t, warning once of a tool the
// policy leaves undeclared or denies as not read-only.
func toolVisible(ctx context.Context, e *policy.Engine, o *obs.Observer, c authz.Caller, t *mcp.Tool) bool {
	r := authz.Request{Method: policy.ToolsCall, Name: t.Name, Listing: true}
	if e.Annotated() {
		r.Annotations = toolAnnotations(*t)
	}
	d := e.Decide(ctx, c, r)
	if d.HiddenFromAll() {
		r.Annotations = toolAnnotations(*t)
		e.Warn(ctx, o, r)
	}
	return d.Verdict != policy.Hidden
}

// promptFilter is the prompts/list and prompts/get filter of e's policy.
func promptFilter(e *policy.Engine, o *obs.Observer) server.PromptFilterFunc {
	return func(ctx context.Context, prompts []mcp.Prompt) []mcp.Prompt {
		c := identify(ctx, nil)
		out := make([]mcp.Prompt, 0, len(prompts))
		for _, p := range prompts {
			r := authz.Request{Method: policy.PromptsGet, Name: p.Name, Listing: true}
			d := e.Decide(ctx, c, r)
			if d.Reason == policy.ReasonUndeclared {
				e.Warn(ctx, o, r)
			}
			if d.Verdict != policy.Hidden {
				out = append(out, p)
			}
		}
		return out
	}
}

// warnRegistered warns once of each tool, prompt and resource s has now
// that no policy declares.
func warnRegistered(s *server.MCPServer, e *policy.Engine, o *obs.Observer) {
	ctx := context.Background()
	for name, st := range s.ListTools() {
		e.Warn(ctx, o, authz.Request{Method: policy.ToolsCall, Name: name, Annotations: toolAnnotations(st.Tool)})
	}
	for name := range s.ListPrompts() {
		e.Warn(ctx, o, authz.Request{Method: policy.PromptsGet, Name: name})
	}
	for uri := range s.ListResources() {
		e.Warn(ctx, o, authz.Request{Method: policy.ResourcesRead, Name: uri})
	}
}

// filterResourceLists leaves out of resources/list and
// resources/templates/list what the caller may not read. What a list names
// is registered: what no policy declares is warned of there too (the
// server's templates are known no other way).
func filterResourceLists(h *server.Hooks, e *policy.Engine, o *obs.Observer) {
	visible := func(ctx context.Context, uri string) bool { return listedResource(ctx, e, o, uri) }
	h.AddAfterListResources(func(ctx context.Context, _ any, _ *mcp.ListResourcesRequest, res *mcp.ListResourcesResult) {
		if res == nil {
			return
		}
		out := make([]mcp.Resource, 0, len(res.Resources))
		for _, r := range res.Resources {
			if visible(ctx, r.URI) {
				out = append(out, r)
			}
		}
		res.Resources = out
	})
	h.AddAfterListResourceTemplates(func(ctx context.Context, _ any, _ *mcp.ListResourceTemplatesRequest, res *mcp.ListResourceTemplatesResult) {
		if res == nil {
			return
		}
		out := make([]mcp.ResourceTemplate, 0, len(res.ResourceTemplates))
		for _, t := range res.ResourceTemplates {
			if t.URITemplate != nil && visible(ctx, t.URITemplate.Raw()) {
				out = append(out, t)
			}
		}
		res.ResourceTemplates = out
	})
}

// listedResource reports whether a listing shows the caller the resource
// uri, and warns of one the policy does not declare.
func listedResource(ctx context.Context, e *policy.Engine, o *obs.Observer, uri string) bool {
	r := authz.Request{Method: policy.ResourcesRead, Name: uri, Listing: true}
	d := e.Decide(ctx, identify(ctx, nil), r)
	if d.Reason == policy.ReasonUndeclared {
		e.Warn(ctx, o, r)
	}
	return d.Verdict != policy.Hidden
}

// toolAnnotations are t's hints with MCP's defaults, as a policy reads
// them (infoOf without the input schema's walk).
func toolAnnotations(t mcp.Tool) authz.Annotations {
	a := t.Annotations
	return authz.Annotations{Known: true, ReadOnly: isTrue(a.ReadOnlyHint), Idempotent: isTrue(a.IdempotentHint),
		Destructive: a.DestructiveHint == nil || *a.DestructiveHint, OpenWorld: a.OpenWorldHint == nil || *a.OpenWorldHint}
}

// hiddenResource is mcp-go's answer to a URI no handler matches, for a
// resource the caller may not read: mcp-go sends a resource handler's
// error as -32603, so the error hook (onRPCError) gives it the code mcp-go
// gives an unknown URI, and nothing else (no data), as mcp-go does.
type hiddenResource struct {
	uri  string
	code int
}

func (h *hiddenResource) Error() string {
	return fmt.Sprintf("handler not found for resource URI '%s': %v", h.uri, server.ErrResourceNotFound)
}

func (h *hiddenResource) Unwrap() error { return server.ErrResourceNotFound }

// hiddenURI is what the server's subscription code is handed instead of a
// URI the caller may not read.
const hiddenURI = "mcpwrap:hidden"

// authorizeSubscriptions makes resource subscriptions follow e as reads do.
// mcp-go acknowledges resources/subscribe of any URI alike and keeps no
// subscription itself: a server's own subscribe hooks and its session type
// (SessionWithResourceSubscriptions) record them. So a hook that runs
// before all others hands them hiddenURI in place of a URI the caller may
// not read (the answer stays mcp-go's acknowledgement, as for an unknown
// URI, which is hidden too), and takes such URIs out of a
// subscriptions/listen request (2026-07-28), whose acknowledgement then
// leaves them out. Hooks that see every request (OnBeforeAny) still see
// the URI as it came.
func authorizeSubscriptions(h *server.Hooks, e *policy.Engine) {
	h.OnBeforeSubscribe = append([]server.OnBeforeSubscribeFunc{func(ctx context.Context, _ any, r *mcp.SubscribeRequest) {
		if r != nil && r.Params.URI != "" && !readable(ctx, e, identify(ctx, nil), r.Params.URI) {
			r.Params.URI = hiddenURI
		}
	}}, h.OnBeforeSubscribe...)
	h.OnBeforeSubscriptionsListen = append([]server.OnBeforeSubscriptionsListenFunc{func(ctx context.Context, _ any, r *mcp.SubscriptionsListenRequest) {
		if r == nil || len(r.Params.Notifications.ResourceSubscriptions) == 0 {
			return
		}
		r.Params.Notifications.ResourceSubscriptions = readableOnly(ctx, e, r.Params.Notifications.ResourceSubscriptions)
	}}, h.OnBeforeSubscriptionsListen...)
}

// readable reports whether the caller c may read the resource uri.
func readable(ctx context.Context, e *policy.Engine, c authz.Caller, uri string) bool {
	return e.Decide(ctx, c, authz.Request{Method: policy.ResourcesRead, Name: uri}).Verdict == policy.Allowed
}

// readableOnly is the URIs of want the caller may read.
func readableOnly(ctx context.Context, e *policy.Engine, want []string) []string {
	c := identify(ctx, nil)
	keep := make([]string, 0, len(want))
	for _, uri := range want {
		if readable(ctx, e, c, uri) {
			keep = append(keep, uri)
		}
	}
	return keep
}
