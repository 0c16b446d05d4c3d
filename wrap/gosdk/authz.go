package gosdk

import (
	"context"
	"fmt"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/policy"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk/internal/content"
)

// callerOf is who calls: the TokenInfo go-sdk's auth.RequireBearerToken
// verified (request Extra), else a Caller in the context (Run's process
// owner, or a verifier of the server's own); the zero Caller otherwise.
func callerOf(ctx context.Context, extra *mcp.RequestExtra) authz.Caller {
	if extra != nil && extra.TokenInfo != nil {
		return fromTokenInfo(extra.TokenInfo)
	}
	if ti := auth.TokenInfoFromContext(ctx); ti != nil {
		return fromTokenInfo(ti)
	}
	if c, ok := authz.FromContext(ctx); ok {
		return c
	}
	if !overHTTP(ctx, extra) {
		// stdio, in-memory transports, s.Run as its authors ship it.
		return policy.ProcessOwner()
	}
	return authz.Caller{}
}

// overHTTP reports whether a request came over HTTP: it has headers, or,
// as on go-sdk's SSE transport, which gives a request none, its context is
// that of the HTTP request that opened the stream
// (TestSSEClientIsNotTheProcessOwner).
func overHTTP(ctx context.Context, extra *mcp.RequestExtra) bool {
	return extra != nil && extra.Header != nil || ctx.Value(http.ServerContextKey) != nil
}

func fromTokenInfo(ti *auth.TokenInfo) authz.Caller {
	return authz.Caller{Subject: ti.UserID, Scopes: ti.Scopes, Expires: ti.Expiration, Claims: ti.Extra}
}

// identify is call.Request.Identify for the requests the middleware
// serves.
func identify(ctx context.Context, r *call.Request) authz.Caller {
	switch v := r.SDK.(type) {
	case *toolCall:
		return callerOf(ctx, v.m.Extra)
	case *methodCall:
		return callerOf(ctx, v.m.GetExtra())
	}
	return callerOf(ctx, nil)
}

// unknownName is go-sdk's own answer to a name it does not know, word for
// word.
func unknownName(r *call.Request) error {
	switch r.Kind {
	case call.Resource:
		return call.ProtocolError(mcp.ResourceNotFoundError(r.Name), int(mcp.CodeResourceNotFound), errs.NotFound)
	case call.Prompt:
		return call.ProtocolError(&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", r.Name)},
			jsonrpc.CodeInvalidParams, errs.NotFound)
	}
	return call.ProtocolError(&jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", r.Name)},
		jsonrpc.CodeInvalidParams, errs.NotFound)
}

// ask is call.Request.Ask: MCP elicitation on the call's session, when the
// client declared the capability, for a client before 2026-07-28 (a later
// one is asked through an input_required result: rounds.Ask).
func ask(ctx context.Context, r *call.Request, msg string) (call.Reply, error) {
	ss := sessionOf(r)
	if ss == nil || !elicits(ss) {
		return call.Unsupported, nil
	}
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: msg, RequestedSchema: call.ConfirmSchema})
	if err != nil {
		return call.Cancelled, err
	}
	return content.Reply(res), nil
}

// sessionOf is the session the request came in, or nil.
func sessionOf(r *call.Request) *mcp.ServerSession {
	switch v := r.SDK.(type) {
	case *toolCall:
		return v.m.Session
	case *methodCall:
		ss, _ := v.m.GetSession().(*mcp.ServerSession)
		return ss
	}
	return nil
}

// elicits reports whether the client of ss said it supports elicitation.
func elicits(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip != nil && ip.Capabilities != nil && ip.Capabilities.Elicitation != nil
}

// filterList leaves out of a tools/list, prompts/list, resources/list or
// resources/templates/list result what the caller may not use, as e
// decides, and marks it cacheScope private (hints); any other result is
// returned as it is. The result is copied,
// never changed: go-sdk may hold it. What is denied to every caller (not
// declared, or hidden by read-only mode) is warned of here, once: go-sdk lets no one read a server's tools but
// through its lists, so the first list is the earliest time.
func filterList(ctx context.Context, e *policy.Engine, o *obs.Observer, hints *cacheHints, req mcp.Request, res mcp.Result) mcp.Result {
	c := callerOf(ctx, req.GetExtra())
	visible := func(method, name string, a authz.Annotations) bool {
		return listed(ctx, e, o, c, authz.Request{Method: method, Name: name, Listing: true, Annotations: a})
	}
	readable := func(uri string) bool { return visible(policy.ResourcesRead, uri, authz.Annotations{}) }
	switch r := res.(type) {
	case *mcp.ListToolsResult:
		if r == nil {
			return res
		}
		cp := *r
		hints.private(ctx, o, "tools/list", &cp.Cacheable)
		cp.Tools = visibleOnly(r.Tools, func(t *mcp.Tool) bool {
			return visible(policy.ToolsCall, t.Name, infoOf(t).Annotations)
		})
		return &cp
	case *mcp.ListPromptsResult:
		if r == nil {
			return res
		}
		cp := *r
		hints.private(ctx, o, "prompts/list", &cp.Cacheable)
		cp.Prompts = visibleOnly(r.Prompts, func(p *mcp.Prompt) bool { return visible(policy.PromptsGet, p.Name, authz.Annotations{}) })
		return &cp
	case *mcp.ListResourcesResult:
		if r == nil {
			return res
		}
		cp := *r
		hints.private(ctx, o, "resources/list", &cp.Cacheable)
		cp.Resources = visibleOnly(r.Resources, func(x *mcp.Resource) bool { return readable(x.URI) })
		return &cp
	case *mcp.ListResourceTemplatesResult:
		if r == nil {
			return res
		}
		cp := *r
		hints.private(ctx, o, "resources/templates/list", &cp.Cacheable)
		cp.ResourceTemplates = visibleOnly(r.ResourceTemplates, func(x *mcp.ResourceTemplate) bool { return readable(x.URITemplate) })
		return &cp
	}
	return res
}

// listed reports whether a listing shows the caller c the entry r, and
// warns of an entry the policy does not declare.
func listed(ctx context.Context, e *policy.Engine, o *obs.Observer, c authz.Caller, r authz.Request) bool {
	d := e.Decide(ctx, c, r)
	if d.HiddenFromAll() {
		e.Warn(ctx, o, r)
	}
	return d.Verdict != policy.Hidden
}

// visibleOnly is the items of xs, not nil, that see keeps; never nil
// itself (a list answers [], not null).
func visibleOnly[T any](xs []*T, see func(*T) bool) []*T {
	out := []*T{}
	for _, x := range xs {
		if x != nil && see(x) {
			out = append(out, x)
		}
	}
	return out
}

// serveSubscribe makes resources/subscribe follow e as resources/read
// does: a URI the caller may not read is answered as go-sdk answers a read
// of an unknown one (ResourceNotFoundError), the server's SubscribeHandler
// does not run and no subscription is kept, so no update of it reaches the
// caller. A URI no policy declares is hidden alike, so an unknown URI and
// a hidden one get the same answer. A server without a SubscribeHandler is
// left to go-sdk (method not found for every URI).
func serveSubscribe(ctx context.Context, e *policy.Engine, handled bool, method string, r *mcp.SubscribeRequest, next mcp.MethodHandler) (mcp.Result, error) {
	if !handled || r.Params == nil || e.Decide(ctx, callerOf(ctx, r.Extra), authz.Request{Method: policy.ResourcesRead, Name: r.Params.URI}).Verdict == policy.Allowed {
		return next(ctx, method, r)
	}
	return nil, mcp.ResourceNotFoundError(r.Params.URI)
}

// listenable is a subscriptions/listen request (2026-07-28) without the
// resource URIs the caller may not read: go-sdk subscribes to each through
// the SubscribeHandler without the middleware, and acknowledges what it
// subscribed, so a hidden URI is left out as an unknown one is. The request
// is copied, never changed.
func listenable(ctx context.Context, e *policy.Engine, r *mcp.SubscriptionsListenRequest) *mcp.SubscriptionsListenRequest {
	if r.Params == nil || r.Params.Notifications == nil || len(r.Params.Notifications.ResourceSubscriptions) == 0 {
		return r
	}
	c := callerOf(ctx, r.Extra)
	want := r.Params.Notifications.ResourceSubscriptions
	keep := make([]string, 0, len(want))
	for _, uri := range want {
		if e.Decide(ctx, c, authz.Request{Method: policy.ResourcesRead, Name: uri}).Verdict == policy.Allowed {
			keep = append(keep, uri)
		}
	}
	if len(keep) == len(want) {
		return r
	}
	n := *r.Params.Notifications
	n.ResourceSubscriptions = keep
	p := *r.Params
	p.Notifications = &n
	cp := *r
	cp.Params = &p
	return &cp
}
