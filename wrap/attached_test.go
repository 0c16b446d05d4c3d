package wrap_test

import (
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// attached is mcpgo.Attach as a server option, for the tests that build a
// server from a list of options.
func attached(w *wrap.Wrapper) server.ServerOption {
	return func(s *server.MCPServer) { mcpgo.Attach(s, w) }
}
