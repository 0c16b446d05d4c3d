// Package listwatch tells the call cache (wrap.WithCache) when the server's tool
// or resource list changes. mcp-go has no hook for AddTool, DeleteTools,
// SetTools, AddResource, DeleteResources and the rest, but sends
// notifications/tools/list_changed (resources/list_changed) to every
// initialized session after each, when the server declares listChanged
// (AddTool declares it for tools, and the adapter turns it on for a server
// built with server.WithToolCapabilities(false); resources need
// server.WithResourceCapabilities(…, true)). A Watch is such a session,
// registered at Attach, that no client holds: its notifications wait in a
// buffered channel that the middleware reads, without blocking, before
// each call, so that no goroutine is started. The changes before the
// first call are the server's start-up, and drop nothing. It shows in the server's
// session hooks under the id "mcpwrap-cache-watch".
package listwatch

import (
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
)

// Watch is the session that receives the list changes.
type Watch struct {
	ch chan mcp.JSONRPCNotification
	// serving is set at the first call: the changes before it are the
	// server's registrations at start-up, which drop nothing (a replica
	// starting must not drop the answers its peers keep in a shared store).
	serving atomic.Bool
}

// buffer is how many list changes wait between two calls; more in between
// are reported by mcp-go's error hook as a blocked channel, and lose
// nothing: the answers were dropped at the first.
const buffer = 64

// New is a Watch to register with the server (RegisterSession).
func New() *Watch { return &Watch{ch: make(chan mcp.JSONRPCNotification, buffer)} }

// Initialize is server.ClientSession's: nothing to do.
func (l *Watch) Initialize() {}

// Initialized is server.ClientSession's: always.
func (l *Watch) Initialized() bool { return true }

// NotificationChannel is where mcp-go sends the list changes.
func (l *Watch) NotificationChannel() chan<- mcp.JSONRPCNotification { return l.ch }

// SessionID is the id the server's session hooks see.
func (l *Watch) SessionID() string { return "mcpwrap-cache-watch" }

// Changed calls changed with the kind of each list that changed since the
// last call, without waiting; the first call reports none.
func (l *Watch) Changed(changed func(call.Kind)) {
	first := !l.serving.Load() && !l.serving.Swap(true)
	for {
		select {
		case n := <-l.ch:
			switch {
			case first:
			case n.Method == mcp.MethodNotificationToolsListChanged:
				changed(call.Tool)
			case n.Method == mcp.MethodNotificationResourcesListChanged:
				changed(call.Resource)
			}
		default:
			return
		}
	}
}
