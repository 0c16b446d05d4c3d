package mcpgo

import (
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/wrap"
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
