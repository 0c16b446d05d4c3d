package mcpgo

import (
	"context"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
)

// listWatch tells w's call cache (wrap.WithCache) when the server's tool
// or resource list changes. mcp-go has no hook for AddTool, DeleteTools,
// SetTools, AddResource, DeleteResources and the rest, but sends
// notifications/tools/list_changed (resources/list_changed) to every
// initialized session after each, when the server declares listChanged
// (AddTool declares it for tools; resources need
// server.WithResourceCapabilities(…, true)). listWatch is such a session,
// registered at Attach, that no client holds: its notifications wait in a
// buffered channel that the middleware reads, without blocking, before
// each call, so that no goroutine is started. The changes before the
// first call are the server's start-up, and drop nothing. It shows in the server's
// session hooks under the id "mcpwrap-cache-watch".
type listWatch struct {
	ch chan mcp.JSONRPCNotification
	id string
	// serving is set at the first call: the changes before it are the
	// server's registrations at start-up, which drop nothing (a replica
	// starting must not drop the answers its peers keep in a shared store).
	serving atomic.Bool
}

// watchBuffer is how many list changes wait between two calls; more in
// between are reported by mcp-go's error hook as a blocked channel, and
// lose nothing: the answers were dropped at the first.
const watchBuffer = 64

func (l *listWatch) Initialize()                                         {}
func (l *listWatch) Initialized() bool                                   { return true }
func (l *listWatch) NotificationChannel() chan<- mcp.JSONRPCNotification { return l.ch }
func (l *listWatch) SessionID() string                                   { return l.id }

// watchLists registers a's list watch when its Wrapper keeps answers.
func (a *attached) watchLists(s *server.MCPServer) {
	if !adapter.Keeps(a.w) {
		return
	}
	l := &listWatch{ch: make(chan mcp.JSONRPCNotification, watchBuffer), id: "mcpwrap-cache-watch"}
	if s.RegisterSession(context.Background(), l) == nil {
		a.lists = l
	}
}

// listsChanged hands the list changes notified since the last call to the
// cache.
func (a *attached) listsChanged() {
	if a.lists == nil {
		return
	}
	first := !a.lists.serving.Load() && !a.lists.serving.Swap(true)
	for {
		select {
		case n := <-a.lists.ch:
			switch {
			case first:
			case n.Method == mcp.MethodNotificationToolsListChanged:
				adapter.Changed(a.w, call.Tool)
			case n.Method == mcp.MethodNotificationResourcesListChanged:
				adapter.Changed(a.w, call.Resource)
			}
		default:
			return
		}
	}
}
