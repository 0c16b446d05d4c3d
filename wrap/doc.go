// Package wrap makes mcp-go handlers safe: every tool failure becomes a
// well-formed isError result the model can act on (a resource or prompt
// failure a precise JSON-RPC error), panics never reach the client, and the
// operator gets one log line per call.
//
// Retrofit an existing server with one line:
//
//	s := server.NewMCPServer("weather", "1.0.0",
//		wrap.ServerOptions(wrap.WithLogger(logger), wrap.WithTimeout(30*time.Second))...)
//
// or with one Wrapper, used for the middleware and for any tool registered
// with its own chain:
//
//	w := wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(5*time.Second))
//	s := server.NewMCPServer("weather", "1.0.0",
//		server.WithToolHandlerMiddleware(w.Middleware()),
//	)
//	s.AddTools(w.Tool(tool, handler), wrap.MustTyped(w, forecastTool, forecast))
//
// A tool registered with Tool or Typed has a chain that knows the tool (its
// annotations, its typed arguments); on a server that has a Middleware, that
// chain takes every option group it was not given from the middleware (see
// Wrapper.Tool), so mixing the forms never loses a log line, a span or a
// timeout, and a call is never wrapped twice.
//
// # The chain
//
// For one tools/call, outermost first:
//
//	finish(limit(admit(timeout(retry(recover(bind(handler)))))))
//
// with observe's start before all of it and observe's end after finish:
//
//   - start (record.go): the observer's span starts, as a child of the
//     client's trace context, and the call gets its id.
//   - limit (limit.go), with WithLimit: a rate limit refuses the call first
//     (errs.RateLimited with a retry-after), so a flood of calls costs one
//     check each and takes no bulkhead slot.
//   - admit (config.admit, bulkhead.go): checks that may refuse the call
//     before any of its work starts — while the process stops after a fatal
//     error or a signal (WithFatalExit), or when the tool's bulkhead is full
//     (WithBulkhead) — answered by finish with an Unavailable result and a
//     retry-after. An admitted call holds a bulkhead slot until its handler
//     really returns. Further admission layers go here, in the order they
//     refuse.
//   - timeout (timeout.go), with WithTimeout: the inner layers run in
//     another goroutine; when the timeout fires the handler's context is
//     cancelled and the call is answered at once, "tool X timed out after
//     5s; the operation may still complete upstream", with sideEffects
//     "possible" unless the tool is read-only or idempotent, even if the
//     handler does not return. It bounds all attempts together; a handler
//     that returns later is logged and its result dropped.
//   - retry (retry.go), with WithRetry: a call that failed with
//     Unavailable, Timeout or RateLimited is repeated if the tool is
//     read-only or idempotent (exponential backoff with full jitter,
//     Retry-After first, within the call's deadline and a retry budget; each
//     retry is a "retry" event on the log and span); otherwise the result
//     says whether the operation may have happened.
//   - recover (recover.go): runs the handler once per attempt, turns a
//     panic into an Internal error carrying the value and stack (the model
//     sees "internal error … (call id …)", the log has the stack), and
//     classifies a returned error once (errs.From, mcp-go's argument errors
//     with errs.ArgumentError, WithPublicErrors); the outer layers read that
//     one value. A nil pointer returned as an error, or an error whose
//     methods panic, becomes an Internal error that says so.
//   - bind (Typed only, typed.go): decodes and validates the arguments
//     into T; a failure is an InvalidArgument error naming every bad
//     parameter, and the handler is not called.
//   - finish (finish.go) maps what is left:
//     (nil, err): errs.ToResult(err), never a JSON-RPC -32603, with the
//     call's secret arguments and secret-shaped text scrubbed from what the
//     model reads; (nil, nil) and a result that cannot be encoded as JSON
//     (NaN in structuredContent): an Internal result; a result with isError
//     set by the handler, or an input_required (multi round-trip) result:
//     passed through unchanged, except the binding failure of mcp-go's typed
//     handlers (errs.ArgumentResult), which becomes the usual
//     invalid-argument result; an error marked with ProtocolError, or an
//     mcp.URLElicitationRequiredError: returned to mcp-go unchanged, the one
//     way to send a JSON-RPC error; an errs.Fatal error, with WithFatalExit:
//     answered like any error, then the process stops.
//   - end (record.go): one log line (masked: true when the model read a
//     generic sentence instead of the error), the span's status and the
//     duration metric; then the call leaves its admission (the fatal drain
//     counts it answered).
//
// # What the model may read
//
// The model reads the message of an error with a public errs code; an
// Internal or Fatal error, and any error errs cannot classify, is masked:
// the model reads "internal error in tool X (call id …); the details are in
// the server log" and the log line says masked. mcp-go's own argument
// errors (CallToolRequest.Require*, BindArguments, mcp.NewTypedToolHandler)
// are InvalidArgument when the request bears them out (errs.ArgumentError,
// errs.ArgumentResult). A server whose own
// errors are written for the user declares them with WithPublicErrors.
//
// # Resources and prompts
//
// Resources, resource templates and prompts go through the same layers
// (Resources, Prompts; ServerOptions includes both). Their methods have no
// isError result, so a failure is a JSON-RPC error built by errs.ToJSONRPC:
// -32002 with the URI in data for a resource that is not found, -32602 for
// invalid arguments, -32603 with a masked message and the call id for
// anything internal. TypedPrompt derives a prompt's arguments from a struct.
//
// Start-up checks (required environment variables, configuration files) are
// collected with Checks, which reports every problem at once and exits with
// ExitConfig. Clients of other services are kept working by the upstream
// sub-package.
//
// A Wrapper and the handlers it builds are safe for concurrent use; options
// are evaluated once, in New.
package wrap
