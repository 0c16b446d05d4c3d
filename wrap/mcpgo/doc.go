// Package mcpgo attaches mcpwrap's chain (package wrap) to a
// github.com/mark3labs/mcp-go server: every tool, resource and prompt
// handler is wrapped, the requests mcp-go answers before any handler (an
// unknown tool, unparsable params) get their log line and span too, and
// trace context is read from params._meta and the HTTP headers.
//
// The one way in is one line after the server is built, whatever its
// constructor and options look like:
//
//	s := server.NewMCPServer("weather", "1.0.0", opts...)
//	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(30*time.Second)))
//
// Option is the same as a server option. Tools that need options of their
// own, or typed arguments, come from the same Wrapper:
//
//	s.AddTools(
//		mcpgo.Tool(w, copyFile, handleCopy, wrap.WithTimeout(2*time.Minute)),
//		mcpgo.MustTyped(w, forecastTool, forecast),
//	)
//
// MustTyped and Typed bind and validate a struct (package validate) and
// advertise its schema; TypedOut checks a structured result too;
// TypedPrompt does the same for prompt arguments; WithSchema advertises a
// struct's schema for an untyped handler. NewHTTPServer is mcp-go's
// streamable HTTP server with a cap on request bodies (4 MiB by default)
// and on idle sessions (30 minutes). Tracer and MetaPropagator connect
// mcp-go's own tracing to an observe.Observer without a second server
// span; InfoOf reads the machine-readable error of a result, on either side
// of the wire.
//
// This package converts between mcp-go's types and package call's at the
// edge, once per request and back; the chain itself is package wrap's.
// Everything here is safe for concurrent use.
package mcpgo
