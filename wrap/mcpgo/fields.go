package mcpgo

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/mark3labs/mcp-go/server"
)

// mcp-go gives no access to some of server.MCPServer's state the adapter
// needs (its middleware lists, task tools, completion providers,
// capabilities); these helpers reach its unexported fields. Each trick
// finds its fields once and checks their types, and a test of its own
// fails when an mcp-go upgrade renames or retypes them: the trick then
// does nothing.

// serverField is the index of server.MCPServer's own field name, when its
// type passes is.
func serverField(name string, is func(reflect.Type) bool) (int, bool) {
	f, ok := reflect.TypeFor[server.MCPServer]().FieldByName(name)
	if !ok || len(f.Index) != 1 || !is(f.Type) {
		return 0, false
	}
	return f.Index[0], true
}

// typeIs is serverField's test for exactly the type T.
func typeIs[T any]() func(reflect.Type) bool {
	return func(t reflect.Type) bool { return t == reflect.TypeFor[T]() }
}

// kindIs is serverField's test for any type of kind k.
func kindIs(k reflect.Kind) func(reflect.Type) bool {
	return func(t reflect.Type) bool { return t.Kind() == k }
}

// lockAt is the sync.RWMutex in the field f of an addressable struct.
func lockAt(f reflect.Value) *sync.RWMutex {
	return (*sync.RWMutex)(unsafe.Pointer(f.UnsafeAddr()))
}

// writable returns an addressable field of an addressable struct as a
// settable value.
func writable(f reflect.Value) reflect.Value {
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// readField is the value of an unexported field of an addressable struct.
func readField(f reflect.Value) any {
	return writable(f).Interface()
}
