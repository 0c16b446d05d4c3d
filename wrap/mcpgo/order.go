package mcpgo

import (
	"reflect"
	"sync"

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
	f := orderFields()
	if !f.ok {
		return false
	}
	v := reflect.ValueOf(s).Elem()
	for i := range f.list {
		moveLastFirst(v.Field(f.list[i]), v.Field(f.mu[i]))
	}
	return true
}

// orderFields are the indices in server.MCPServer of the three middleware
// lists and their locks, found once: a server per request must not pay
// for looking fields up by name. ok is false when one is missing or has
// another type.
var orderFields = sync.OnceValue(func() (f struct {
	list, mu [3]int
	ok       bool
}) {
	for i, n := range [...]struct{ list, mu string }{
		{"toolHandlerMiddlewares", "toolMiddlewareMu"},
		{"resourceHandlerMiddlewares", "resourceMiddlewareMu"},
		{"promptHandlerMiddlewares", "promptMiddlewareMu"},
	} {
		var okl, okm bool
		f.list[i], okl = serverField(n.list, kindIs(reflect.Slice))
		f.mu[i], okm = serverField(n.mu, typeIs[sync.RWMutex]())
		if !okl || !okm {
			return f
		}
	}
	f.ok = true
	return f
})

// moveLastFirst moves the last element of the slice l to the front, under
// the lock m.
func moveLastFirst(l, m reflect.Value) {
	lock := lockAt(m)
	lock.Lock()
	defer lock.Unlock()
	n := l.Len()
	if n < 2 {
		return
	}
	l = writable(l)
	last := reflect.ValueOf(l.Index(n - 1).Interface())
	reflect.Copy(l.Slice(1, n), l.Slice(0, n-1))
	l.Index(0).Set(last)
}
