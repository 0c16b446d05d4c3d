package mcpgo

import (
	"context"
	"log/slog"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo/internal/listwatch"
)

// listsChanged hands the list changes notified since the last call to the
// cache. The watch (package listwatch: a session of mcpwrap's own that
// receives mcp-go's list_changed notifications) is registered at the first
// call after w keeps answers (wrap.WithCache, in New, ForTool or a tool's
// registration options): nothing is kept before it, so no change before it
// matters.
func (a *attached) listsChanged(ctx context.Context) {
	l := a.lists.Load()
	if l == nil {
		if !adapter.Keeps(a.w) {
			return
		}
		if l = a.watchLists(ctx); l == nil {
			return
		}
	}
	l.Changed(func(kind call.Kind) { adapter.Changed(a.w, kind) })
}

// watchLists registers a's list watch on its server, once, during the call
// of ctx (the registration outlives it); nil when mcp-go refused it (a
// session of that id exists: the server is attached twice).
func (a *attached) watchLists(ctx context.Context) *listwatch.Watch {
	a.mu.Lock()
	defer a.mu.Unlock()
	if l := a.lists.Load(); l != nil || a.watchRefused {
		return l
	}
	l := listwatch.New()
	if a.server.RegisterSession(context.WithoutCancel(ctx), l) != nil {
		a.watchRefused = true
		return nil
	}
	if announceToolChanges(a.server) {
		adapter.Observer(a.w).Log(ctx, slog.LevelInfo, "the server's tools capability now says listChanged: true, "+
			"so that the call cache sees tools added, replaced and removed (mcp-go sends no tools/list_changed otherwise; clients receive them too)")
	}
	a.lists.Store(l)
	return l
}
