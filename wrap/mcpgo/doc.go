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
// Tools that need options of their own, or typed arguments, come from the
// same Wrapper:
//
//	s.AddTools(
//		mcpgo.Tool(w, copyFile, handleCopy, wrap.WithTimeout(2*time.Minute)),
//		mcpgo.Typed(w, forecastTool, forecast),
//	)
//
// Typed binds and validates a struct (package validate), advertises its
// schema and, for a handler returning a struct, checks the structured result
// too; TypedPrompt does the same for prompt arguments. Both panic on a
// struct whose tags are wrong, at start-up. NewHTTPServer is mcp-go's
// streamable HTTP server with a cap on request bodies (4 MiB by default) and
// on idle sessions (30 minutes); ServeStdio serves stdio and answers what
// was read before the client closed stdin. When limits a middleware of your
// own to some tools. Tracer, MetaPropagator and HTTPPropagator connect
// mcp-go's own tracing (and an mcp-go client's) to a Wrapper's telemetry
// without a second server span; InfoOf reads the machine-readable error of a
// result, on either side of the wire; MarkError marks an mcp-go client's
// errors for wrap/upstream.
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
// This package converts between mcp-go's types and the chain's neutral
// request and result at the edge, once per request and back; the chain itself is package wrap's.
// Everything here is safe for concurrent use.
package mcpgo
