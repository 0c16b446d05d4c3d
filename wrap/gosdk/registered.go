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
	extra := mc.m.GetExtra()
	if r.Kind == call.Prompt {
		found := mc.each(ctx, "prompts/list", func(cursor string) mcp.Request {
			return &mcp.ListPromptsRequest{Session: ss, Extra: extra, Params: &mcp.ListPromptsParams{Cursor: cursor}}
		}, func(res mcp.Result) []string {
			var out []string
			if l, ok := res.(*mcp.ListPromptsResult); ok && l != nil {
				for _, p := range l.Prompts {
					if p != nil {
						out = append(out, p.Name)
					}
				}
			}
			return out
		}, func(n string) bool { return n == r.Name })
		return found, found != ""
	}
	found := mc.each(ctx, "resources/list", func(cursor string) mcp.Request {
		return &mcp.ListResourcesRequest{Session: ss, Extra: extra, Params: &mcp.ListResourcesParams{Cursor: cursor}}
	}, func(res mcp.Result) []string {
		var out []string
		if l, ok := res.(*mcp.ListResourcesResult); ok && l != nil {
			for _, x := range l.Resources {
				if x != nil {
					out = append(out, x.URI)
				}
			}
		}
		return out
	}, func(uri string) bool { return uri == r.Name })
	if found != "" {
		return found, true
	}
	found = mc.each(ctx, "resources/templates/list", func(cursor string) mcp.Request {
		return &mcp.ListResourceTemplatesRequest{Session: ss, Extra: extra, Params: &mcp.ListResourceTemplatesParams{Cursor: cursor}}
	}, func(res mcp.Result) []string {
		var out []string
		if l, ok := res.(*mcp.ListResourceTemplatesResult); ok && l != nil {
			for _, x := range l.ResourceTemplates {
				if x != nil {
					out = append(out, x.URITemplate)
				}
			}
		}
		return out
	}, func(raw string) bool {
		t, err := uritemplate.New(raw)
		return err == nil && t.Regexp().MatchString(r.Name)
	})
	return found, found != ""
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
