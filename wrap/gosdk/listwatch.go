package gosdk

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk/internal/content"
)

// toolList notices changes of a server's tool list that go-sdk tells no
// one: it sends notifications/tools/list_changed (which sending reads) to
// a session of protocol 2026-07-28 or later only while that session holds
// a subscriptions/listen stream, so a current client over stdio, which
// opens none, never causes one, and a tool replaced at run time would be
// answered from what the old one left in the cache. Before a tools/call
// of such a session reaches the chain of a Wrapper that keeps answers, it
// lists the server's tools (in process, through the method handlers under
// the middleware) and drops the kept tool answers when the list is not
// the one seen last: another tool, or the same name registered anew with
// another *mcp.Tool. Servers that keep nothing, and older sessions, which
// are notified, pay nothing.
type toolList struct {
	mu   sync.Mutex
	seen []*mcp.Tool
}

// check runs the comparison for r, a tools/call about to be served by w.
func (l *toolList) check(ctx context.Context, w *wrap.Wrapper, r *mcp.CallToolRequest, next mcp.MethodHandler) {
	if l == nil || r.Session == nil || !adapter.Keeps(w) || r.ProtocolVersion() < content.ModernProtocol {
		return
	}
	tools, ok := listTools(ctx, r, next)
	if !ok {
		return
	}
	l.mu.Lock()
	changed := l.seen != nil && !sameTools(l.seen, tools)
	l.seen = tools
	l.mu.Unlock()
	if changed {
		adapter.Changed(w, call.Tool)
	}
}

// listTools reads every page of the server's tools/list for r's session.
func listTools(ctx context.Context, r *mcp.CallToolRequest, next mcp.MethodHandler) ([]*mcp.Tool, bool) {
	var all []*mcp.Tool
	cursor := ""
	for range lookupPages {
		res, err := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: r.Session, Extra: r.Extra, Params: &mcp.ListToolsParams{Cursor: cursor}})
		list, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok || list == nil {
			return nil, false
		}
		all = append(all, list.Tools...)
		if list.NextCursor == "" || list.NextCursor == cursor {
			return all, true
		}
		cursor = list.NextCursor
	}
	return nil, false
}

// sameTools reports whether a and b hold the same tools, by identity.
func sameTools(a, b []*mcp.Tool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
