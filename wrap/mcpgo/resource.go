package mcpgo

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/errbase"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/mcpgoerr"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/result"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo/internal/content"
)

// resourceMiddleware serves resources/read (resources and templates)
// through the Wrapper's chain, a.serve, after handing the list changes to
// the cache (cache.go). A failure is answered with the *errmap.RPCError
// the chain built; the error hook Attach adds gives it its JSON-RPC code
// and data on the wire.
func resourceMiddleware(a *attached) server.ResourceHandlerMiddleware {
	serve := a.serve
	return func(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
		return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			a.listsChanged(ctx)
			rc := &resourceCall{m: req, next: next}
			rc.req = call.Request{Kind: call.Resource, Name: req.Params.URI, Args: req.Params.Arguments, Header: req.Header, SDK: rc}
			fill(ctx, &rc.req, req.Params.Meta)
			rc.req.Registered, rc.req.Decode = registeredResource, content.DecodeResource
			a := serve(ctx, &rc.req, handleResource)
			switch {
			case a.Protocol != nil:
				return nil, a.Protocol
			case a.RPC != nil:
				return nil, a.RPC
			}
			return a.Result.(content.Resource).C, nil
		}
	}
}

// registeredResource is call.Request.Registered for a resources/read the
// middleware serves: mcp-go runs it only for a URI it has a handler for, a
// resource's (the session's or the server's) or, failing that, a
// template's. mcp-go does not say which template, nor list the server's:
// such a URI is warned of as "a template" ("").
func registeredResource(ctx context.Context, r *call.Request) (string, bool) {
	if sr, ok := server.ClientSessionFromContext(ctx).(server.SessionWithResources); ok {
		if _, found := sr.GetSessionResources()[r.Name]; found {
			return r.Name, true
		}
	}
	s := server.ServerFromContext(ctx)
	if s == nil { // not known to be a template's: the URI is what is warned of
		return r.Name, true
	}
	if _, found := s.ListResources()[r.Name]; found {
		return r.Name, true
	}
	return "", true
}

// registeredPrompt is call.Request.Registered for a prompts/get the
// middleware serves: mcp-go runs it only for a prompt it has.
func registeredPrompt(_ context.Context, r *call.Request) (string, bool) { return r.Name, true }

type resourceCall struct {
	req  call.Request
	m    mcp.ReadResourceRequest
	next server.ResourceHandlerFunc
}

func handleResource(ctx context.Context, r *call.Request) (call.Result, error) {
	rc := r.SDK.(*resourceCall)
	c, err := rc.next(ctx, rc.m)
	if err != nil {
		if p, ok := recovered(err, "resource", rc.m.Params.URI); ok {
			panic(p)
		}
		return nil, markError(err)
	}
	if c == nil {
		return nil, nil
	}
	return content.Resource{C: c}, nil
}

// promptMiddleware serves prompts/get through the Wrapper's chain, serve.
func promptMiddleware(serve adapter.Serve) server.PromptHandlerMiddleware {
	return func(next server.PromptHandlerFunc) server.PromptHandlerFunc {
		return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			pc := &promptCall{m: req, next: next}
			pc.req = call.Request{Kind: call.Prompt, Name: req.Params.Name, Header: req.Header, SDK: pc}
			if len(req.Params.Arguments) > 0 {
				pc.req.Args = req.Params.Arguments
			}
			fill(ctx, &pc.req, req.Params.Meta)
			pc.req.Registered = registeredPrompt
			a := serve(ctx, &pc.req, handlePrompt)
			switch {
			case a.Protocol != nil:
				return nil, a.Protocol
			case a.RPC != nil:
				return nil, a.RPC
			}
			return a.Result.(promptResult).V, nil
		}
	}
}

type promptCall struct {
	req  call.Request
	m    mcp.GetPromptRequest
	next server.PromptHandlerFunc
}

func handlePrompt(ctx context.Context, r *call.Request) (call.Result, error) {
	pc := r.SDK.(*promptCall)
	res, err := pc.next(ctx, pc.m)
	if err != nil {
		return nil, markError(err)
	}
	if res == nil {
		return nil, nil
	}
	return promptResult{V: res}, nil
}

// markError is mcpgoerr.Mark for a resource's or prompt's error. A broken
// error (a typed nil, a method that panics) is left to the chain, which
// describes it; reading it here would panic.
func markError(err error) (out error) {
	defer func() {
		if recover() != nil {
			out = err
		}
	}()
	if errbase.IsNil(err) {
		return err
	}
	return mcpgoerr.Mark(err)
}

type promptResult = result.Value[*mcp.GetPromptResult]

// fill completes a request from the context and the request's _meta.
func fill(ctx context.Context, r *call.Request, meta *mcp.Meta) {
	if meta != nil {
		r.Meta = meta.AdditionalFields
	}
	r.Protocol = server.RequestProtocolVersion(ctx)
	r.Modern = mcp.IsModernProtocol(r.Protocol)
	r.Identify, r.Unknown = identify, unknownName
	if s := server.ClientSessionFromContext(ctx); s != nil {
		r.Session = s.SessionID()
	}
}

// onRPCError runs when mcp-go answers a resources/read or prompts/get with
// an error: it gives an errmap.RPCError its code and data on the wire, and
// logs a read of a URI no handler matches or a prompt mcp-go does not
// know, which no middleware saw: the client's mistake, not_found.
func (a *attached) onRPCError(ctx context.Context, msg any, err error) {
	var hidden *hiddenResource
	if errors.As(err, &hidden) {
		sendCode(err, hidden.code) // the chain has logged it
		return
	}
	var rpc *errmap.RPCError
	if errors.As(err, &rpc) {
		sendRPCError(err, rpc)
		return
	}
	o := adapter.Observer(a.w)
	if o == nil {
		return
	}
	r, ok := notFound(ctx, msg, err)
	if !ok {
		return
	}
	code := mcp.INTERNAL_ERROR
	if c, ok := requestErrorCode(err); ok {
		code = c
	}
	o.Answered(ctx, &r, obs.Report{Outcome: obs.CodeOutcome(errs.NotFound),
		Err: errs.Wrap(errs.NotFound, err, ""), JSONRPCCode: code}, false)
}

// notFound is the request msg when err says that what it names does not
// exist: a resource read or a prompt get; ok is false for anything else.
func notFound(ctx context.Context, msg any, err error) (r call.Request, ok bool) {
	switch req := msg.(type) {
	case *mcp.ReadResourceRequest:
		if req == nil || !errors.Is(err, server.ErrResourceNotFound) {
			return r, false
		}
		r = call.Request{Kind: call.Resource, Name: req.Params.URI, Args: req.Params.Arguments, Header: req.Header}
		fill(ctx, &r, req.Params.Meta)
	case *mcp.GetPromptRequest:
		if req == nil || !errors.Is(err, server.ErrPromptNotFound) {
			return r, false
		}
		r = call.Request{Kind: call.Prompt, Name: req.Params.Name, Header: req.Header}
		if len(req.Params.Arguments) > 0 {
			r.Args = req.Params.Arguments
		}
		fill(ctx, &r, req.Params.Meta)
	default:
		return r, false
	}
	return r, true
}
