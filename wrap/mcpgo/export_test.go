package mcpgo

import (
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/policy"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// The internals the package's external tests reach.
var (
	ArgumentError  = argumentError
	ArgumentResult = argumentResult
)

// Middleware is the tool middleware Attach adds, alone, for benchmarks
// that run it over a handler without a server.
func Middleware(w *wrap.Wrapper) server.ToolHandlerMiddleware {
	return (&attached{w: w, serve: adapter.Chain(w)}).middleware()
}

// AuthorizeCompletion wraps s's completion providers with p, as Attach does.
func AuthorizeCompletion(s *server.MCPServer, p authz.Policy) bool {
	return authorizeCompletion(s, policy.New(p))
}
