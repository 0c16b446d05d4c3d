package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpwrap/mcpwrap/internal/call"
)

// Finding a registration: go-sdk hands the middleware every prompts/get and
// resources/read before it looks the name up, and exposes what a server
// registered only through its lists. When the chain would warn that no
// policy declares a prompt or resource, it asks the server, as the tool
// lookup does (lookup.go): the lists, through the method handlers under the
// middleware, page by page, on the request's session. A URI no resource
// has is matched against the templates as go-sdk matches it. A name the
// client made up is found in none, and is warned of never.

// registered is call.Request.Registered for a resources/read or
// prompts/get the middleware serves (a function, not a method value, so
// that a request pays no allocation for it).
func registered(ctx context.Context, r *call.Request) (name string, ok bool) {
	mc, _ := r.SDK.(*methodCall)
	if mc == nil {
		return "", false
	}
	defer func() {
		if recover() != nil {
			name, ok = "", false // a list that panics tells nothing
		}
	}()
	ss, _ := mc.m.GetSession().(*mcp.ServerSession)
	if ss == nil || mc.next == nil {
		return "", false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookupTimeout)
	defer cancel()
	if r.Kind == call.Prompt {
		name = registeredPrompt(ctx, mc, ss, r.Name)
	} else {
		name = registeredResource(ctx, mc, ss, r.Name)
	}
	return name, name != ""
}

// registeredPrompt is the prompt the server lists under name, or "".
func registeredPrompt(ctx context.Context, mc *methodCall, ss *mcp.ServerSession, name string) string {
	extra := mc.m.GetExtra()
	return mc.each(ctx, "prompts/list", func(cursor string) mcp.Request {
		return &mcp.ListPromptsRequest{Session: ss, Extra: extra, Params: &mcp.ListPromptsParams{Cursor: cursor}}
	}, func(res mcp.Result) []string {
		l, _ := res.(*mcp.ListPromptsResult)
		if l == nil {
			return nil
		}
		return namesOf(l.Prompts, func(p *mcp.Prompt) string { return p.Name })
	}, func(n string) bool { return n == name })
}

// registeredResource is the resource the server lists at uri, or the
// template that matches it, or "".
func registeredResource(ctx context.Context, mc *methodCall, ss *mcp.ServerSession, uri string) string {
	extra := mc.m.GetExtra()
	found := mc.each(ctx, "resources/list", func(cursor string) mcp.Request {
		return &mcp.ListResourcesRequest{Session: ss, Extra: extra, Params: &mcp.ListResourcesParams{Cursor: cursor}}
	}, func(res mcp.Result) []string {
		l, _ := res.(*mcp.ListResourcesResult)
		if l == nil {
			return nil
		}
		return namesOf(l.Resources, func(x *mcp.Resource) string { return x.URI })
	}, func(u string) bool { return u == uri })
	if found != "" {
		return found
	}
	return mc.each(ctx, "resources/templates/list", func(cursor string) mcp.Request {
		return &mcp.ListResourceTemplatesRequest{Session: ss, Extra: extra, Params: &mcp.ListResourceTemplatesParams{Cursor: cursor}}
	}, func(res mcp.Result) []string {
		l, _ := res.(*mcp.ListResourceTemplatesResult)
		if l == nil {
			return nil
		}
		return namesOf(l.ResourceTemplates, func(x *mcp.ResourceTemplate) string { return x.URITemplate })
	}, func(raw string) bool {
		t, err := uritemplate.New(raw)
		return err == nil && t.Regexp().MatchString(uri)
	})
}

// namesOf is the names of the items of xs that are not nil.
func namesOf[T any](xs []*T, name func(*T) string) []string {
	var out []string
	for _, x := range xs {
		if x != nil {
			out = append(out, name(x))
		}
	}
	return out
}

// each reads the pages of a list method until match accepts one of the
// names a page holds, and returns it; "" when none does.
func (mc *methodCall) each(ctx context.Context, method string, req func(cursor string) mcp.Request,
	names func(mcp.Result) []string, match func(string) bool) string {
	cursor := ""
	for range lookupPages {
		res, err := mc.next(ctx, method, req(cursor))
		if err != nil || res == nil {
			return ""
		}
		for _, n := range names(res) {
			if match(n) {
				return n
			}
		}
		next := nextCursor(res)
		if next == "" || next == cursor {
			return ""
		}
		cursor = next
	}
	return ""
}

// nextCursor is a list result's nextCursor.
func nextCursor(res mcp.Result) string {
	switch l := res.(type) {
	case *mcp.ListPromptsResult:
		return l.NextCursor
	case *mcp.ListResourcesResult:
		return l.NextCursor
	case *mcp.ListResourceTemplatesResult:
		return l.NextCursor
	}
	return ""
}
