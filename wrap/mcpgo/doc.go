// Package mcpgo attaches mcpwrap's chain (package wrap) to a
// github.com/mark3labs/mcp-go server: every tool, resource and prompt
// handler is wrapped, the requests mcp-go answers before any handler (an
// unknown tool, unparsable params) get their log line and span too, and
// trace context is read from params._meta and the HTTP headers. An error
// the chain answers is shown by errs' rules, scrubbed of the call's
// secrets, or masked with a call id; what a handler returns as success is
// never scrubbed.
//
// The one way in is one line after the server is built, whatever its
// constructor and options look like:
//
//	s := server.NewMCPServer("weather", "1.0.0", opts...)
//	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(30*time.Second)))
//
// Tools that need options of their own, or typed arguments, come from the
// same Wrapper:
//
//	s.AddTools(
//		mcpgo.Tool(w, copyFile, handleCopy, wrap.WithTimeout(2*time.Minute)),
//		mcpgo.Typed(w, forecastTool, forecast),
//	)
//
// Serve with NewHTTPServer (mcp-go's streamable HTTP server with limits)
// or ServeStdio. docs/retrofit.md tells the rest: typed tools and prompts,
// When, the tracing bridges, InfoOf and MarkError, and what is scrubbed.
// Everything here is safe for concurrent use.
package mcpgo
