package mcpgo

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/mark3labs/mcp-go/server"
)

// outermost moves the middlewares Attach just appended (the last of each of
// mcp-go's three middleware lists) to the front, so that the chain is
// outermost whatever the server registered before it: a server's own
// middleware that returns a Go error then goes through the chain too.
//
// mcp-go has no way to prepend a middleware, so this reads its unexported
// fields (toolHandlerMiddlewares and toolMiddlewareMu, and the resource and
// prompt pairs), under their locks. TestOrderTrickFields fails when an
// mcp-go upgrade renames or retypes them; moved reports false then, and the
// chain stays where it was appended.
func outermost(s *server.MCPServer) bool {
	ok := true
	for _, f := range [...]struct{ list, mu string }{
		{"toolHandlerMiddlewares", "toolMiddlewareMu"},
		{"resourceHandlerMiddlewares", "resourceMiddlewareMu"},
		{"promptHandlerMiddlewares", "promptMiddlewareMu"},
	} {
		ok = moveLastFirst(s, f.list, f.mu) && ok
	}
	return ok
}

func moveLastFirst(s *server.MCPServer, list, mu string) bool {
	v := reflect.ValueOf(s).Elem()
	l, m := v.FieldByName(list), v.FieldByName(mu)
	if !l.IsValid() || l.Kind() != reflect.Slice || !m.IsValid() || m.Type() != reflect.TypeFor[sync.RWMutex]() {
		return false
	}
	lock := (*sync.RWMutex)(unsafe.Pointer(m.UnsafeAddr()))
	lock.Lock()
	defer lock.Unlock()
	l = reflect.NewAt(l.Type(), unsafe.Pointer(l.UnsafeAddr())).Elem()
	n := l.Len()
	if n < 2 {
		return true
	}
	last := reflect.ValueOf(l.Index(n - 1).Interface())
	reflect.Copy(l.Slice(1, n), l.Slice(0, n-1))
	l.Index(0).Set(last)
	return true
}
