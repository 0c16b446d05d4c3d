// Package wrap makes mcp-go tool handlers safe: every failure becomes a
// well-formed isError result the model can act on, panics never reach the
// client, and the operator gets one log line per call.
//
// Retrofit an existing server with one option:
//
//	s := server.NewMCPServer("weather", "1.0.0",
//		server.WithToolHandlerMiddleware(wrap.Middleware(wrap.WithLogger(logger))),
//	)
//
// or wrap one tool, which lets the chain see the tool's definition:
//
//	s.AddTools(wrap.Tool(tool, handler, wrap.WithTimeout(5*time.Second)))
//
// The chain, outermost first, is
//
//	finish(limit(admit(timeout(retry(recover(handler))))))
//
// where limit, when WithLimit is given, admits or refuses the call before
// any of the rest runs (binding included, so a flood costs one check per
// call; a refusal is a rate_limited result with retryAfterSeconds, see
// wrap/limit); recover turns a panic into an Internal error carrying the value and
// stack (the model sees "internal error … (call id …)", the log has the
// stack); retry, when WithRetry is on, repeats a call that failed with
// Unavailable, Timeout or RateLimited if the tool is read-only or idempotent
// (backoff with full jitter, Retry-After first, within the call's deadline
// and a retry budget; each retry is a "retry" event on the log), and
// otherwise says in the result whether the operation may have happened;
// timeout, when configured, cancels the handler's context and answers
// "tool X timed out after 5s; the operation may still complete upstream" even
// if the handler does not return, and bounds all attempts together; finish
// maps what is left:
//
//   - (nil, err): errs.ToResult(err) — never a JSON-RPC -32603;
//   - (nil, nil): an Internal result;
//   - a result with isError set by the handler, or an input_required
//     (multi round-trip) result: passed through unchanged;
//   - an error marked with ProtocolError, or an mcp.URLElicitationRequiredError:
//     returned to mcp-go unchanged, the one way to send a JSON-RPC error;
//   - an errs.Fatal error, with WithFatalExit: answered like any error, then
//     the process stops (hooks, then exit status ExitFatal).
//
// Start-up checks (required environment variables, configuration files) are
// collected with Checks, which reports every problem at once and exits with
// ExitConfig. Clients of other services are kept working by the upstream
// sub-package.
//
// Typed (and TypedOut) register a handler that receives its arguments bound
// and validated by the validate package; binding failures flow through the
// same chain, as invalid_argument.
//
// The Middleware steps aside for tools registered with Tool or Typed, so the
// two forms mix on one server without wrapping a call twice. A Wrapper and the
// handlers it builds are safe for concurrent use; options are evaluated once,
// in New.
package wrap
