package mcpgo

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/mark3labs/mcp-go/server"
)

// mcp-go runs a tool registered with AddTaskTool with no tool middleware
// at all, and has no method that returns such a tool's handler. To run
// the chain around the work, wrapTaskTool replaces the handler in the
// server's unexported taskTools map, under its toolsMu lock, the first
// time the tool is called as a task (so a tool added after Attach is
// wrapped too). TestTaskToolTrickFields fails when an mcp-go upgrade
// renames or retypes the fields; wrapTaskTool then finds no tool, and the
// work runs as mcp-go runs it, outside the chain (the creation is still
// decided by the chain, in the hook).

// taskToolFields are the indices in server.MCPServer of taskTools and
// toolsMu, found once; ok is false when one is missing or has another
// type.
var taskToolFields = sync.OnceValue(func() (f struct {
	tools, mu int
	ok        bool
}) {
	var okt, okm bool
	f.tools, okt = serverField("taskTools", typeIs[map[string]server.ServerTaskTool]())
	f.mu, okm = serverField("toolsMu", typeIs[sync.RWMutex]())
	f.ok = okt && okm
	return f
})

// wrapTaskTool replaces the handler of s's task tool name with
// wrap(handler) unless wrapped says it is wrapped already, and returns the
// tool; ok is false when s has no task tool of that name (or the fields
// are not there).
func wrapTaskTool(s *server.MCPServer, name string, wrapped func(server.TaskToolHandlerFunc) bool,
	wrap func(server.TaskToolHandlerFunc) server.TaskToolHandlerFunc) (server.ServerTaskTool, bool) {
	f := taskToolFields()
	if !f.ok || s == nil {
		return server.ServerTaskTool{}, false
	}
	v := reflect.ValueOf(s).Elem()
	lock := lockAt(v.Field(f.mu))
	field := v.Field(f.tools)
	m := *(*map[string]server.ServerTaskTool)(unsafe.Pointer(field.UnsafeAddr()))
	key := name
	lock.RLock()
	tt, ok := m[key]
	lock.RUnlock()
	if !ok || tt.Handler == nil || wrapped(tt.Handler) {
		return tt, ok
	}
	lock.Lock()
	defer lock.Unlock()
	tt, ok = m[key]
	if ok && tt.Handler != nil && !wrapped(tt.Handler) {
		tt.Handler = wrap(tt.Handler)
		m[key] = tt
	}
	return tt, ok
}

// funcID is the identity of a func value: the closure it points to. Two
// closures of one function literal share their code, never their closure
// when they capture something (taskHandler's capture next).
func funcID(f server.TaskToolHandlerFunc) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&f))
}
