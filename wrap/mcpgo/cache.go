package mcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo/internal/listwatch"
)

// watchLists registers a's list watch (package listwatch) when its
// Wrapper keeps answers (wrap.WithCache), so that a change of the
// server's tool or resource list drops them.
func (a *attached) watchLists(s *server.MCPServer) {
	if !adapter.Keeps(a.w) {
		return
	}
	l := listwatch.New()
	if s.RegisterSession(context.Background(), l) == nil {
		a.lists = l
	}
}

// listsChanged hands the list changes notified since the last call to the
// cache.
func (a *attached) listsChanged() {
	if a.lists != nil {
		a.lists.Changed(func(kind call.Kind) { adapter.Changed(a.w, kind) })
	}
}
