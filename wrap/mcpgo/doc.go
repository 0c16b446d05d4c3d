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
// mcp-go's own tracing to a Wrapper's telemetry without a second
// server span; InfoOf reads the machine-readable error of a result, on either side
// of the wire.
//
// What is scrubbed: an error the chain answers (a Go error, a panic, a
// timeout) is shown by errs' rules, its message scrubbed of the call's
// secret argument and header values and secret-shaped text (PEM blocks,
// bearer tokens, JWTs, API keys, URL passwords, "password=…"), or masked
// with a call id; the text contents of an isError result the handler
// built itself are scrubbed the same way, its structuredContent and other
// contents pass unchanged. A successful or input_required result, and a
// resource's or prompt's contents, pass unchanged: what a handler returns
// as success is never scrubbed. Retries and the advice of a timeout follow
// the tool's annotations, read where mcp-go finds the tool: the session's
// tools (AddSessionTool) first, then the server's.
//
// This package converts between mcp-go's types and package call's at the
// edge, once per request and back; the chain itself is package wrap's.
// Everything here is safe for concurrent use.
package mcpgo
