package mcpgo

import (
	"reflect"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// announceToolChanges turns on s's announcement of tool list changes (its
// tools capability's listChanged) when s was built without it
// (server.WithToolCapabilities(false), as mcp-go's README builds a
// server), and reports whether it did. mcp-go then sends no
// notifications/tools/list_changed, to its clients or to the list watch,
// and the call cache would keep answers across AddTool, SetTools and
// DeleteTools: a read-only tool replaced by one that writes would be
// answered from the cache. Its clients are told of the changes too, as a
// server that declares listChanged should tell them.
//
// mcp-go has no accessor for its capabilities, so this reads and writes its
// unexported fields (capabilities.tools.listChanged) under capabilitiesMu,
// as mcp-go's own implicit registration does.
// TestCacheSeesToolChangesOfAServerBuiltWithoutListChanged fails when an
// mcp-go upgrade renames or retypes them; this then does nothing.
func announceToolChanges(s *server.MCPServer) bool {
	f := capabilityFields()
	if !f.ok {
		return false
	}
	v := reflect.ValueOf(s).Elem()
	mu := lockAt(v.Field(f.mu))
	mu.Lock()
	defer mu.Unlock()
	tools := v.Field(f.caps).Field(f.tools)
	if tools.IsNil() {
		return false // no tool yet: mcp-go's first AddTool declares listChanged
	}
	changed := tools.Elem().Field(f.listChanged)
	if changed.Bool() {
		return false
	}
	writable(changed).SetBool(true)
	return true
}

// capabilityFields are the indices of server.MCPServer's capabilities and
// capabilitiesMu, of the former's tools, and of that one's listChanged,
// found once; ok is false when one is missing or has another type.
var capabilityFields = sync.OnceValue(func() (f struct {
	caps, mu, tools, listChanged int
	ok                           bool
}) {
	var okc, okm bool
	f.caps, okc = serverField("capabilities", kindIs(reflect.Struct))
	f.mu, okm = serverField("capabilitiesMu", typeIs[sync.RWMutex]())
	if !okc || !okm {
		return f
	}
	caps := reflect.TypeFor[server.MCPServer]().Field(f.caps)
	tools, okt := caps.Type.FieldByName("tools")
	if !okt || len(tools.Index) != 1 || tools.Type.Kind() != reflect.Pointer || tools.Type.Elem().Kind() != reflect.Struct {
		return f
	}
	lc, okl := tools.Type.Elem().FieldByName("listChanged")
	if !okl || len(lc.Index) != 1 || lc.Type.Kind() != reflect.Bool {
		return f
	}
	f.tools, f.listChanged, f.ok = tools.Index[0], lc.Index[0], true
	return f
})
