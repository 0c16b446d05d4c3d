// Package wrap makes MCP server handlers safe: every tool failure becomes a
// well-formed isError result the model can act on (a resource or prompt
// failure a precise JSON-RPC error), a panic never reaches the client, and
// the operator gets one log line per call with the real cause. It knows no
// SDK: an adapter attaches a Wrapper to a server. The one way in, for mcp-go:
//
//	s := server.NewMCPServer("weather", "1.0.0", opts...)
//	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(30*time.Second)))
//
// For one call, the layers run outermost first:
//
//	observe(loop(answer(cap(authorize(object(cache(limit(admit(timeout(retry(recover(bind(handler)))))))))))))
//
// observe gives the call its id, span and log line; loop (WithLoopGuard)
// answers at once a call that failed the same way too often; answer makes
// the SDK's answer, an error as the one error result errs describes; cap
// cuts a result over WithResultLimit (1 MiB by default), saying so;
// authorize enforces WithAuthorization's policy (package authz), answering
// a hidden name as an unknown one; object refuses arguments that are not a
// JSON object; cache (WithCache) answers identical calls once; limit is
// WithLimit; admit refuses a call while the process stops (WithFatalExit)
// or the tool's bulkhead is full (WithBulkhead); timeout is WithTimeout;
// retry is WithRetry, for read-only or idempotent tools only; recover turns a panic into a masked error and decides what
// the model may read of an error (WithMaskedErrors, WithPublicErrors); bind
// decodes and validates typed arguments (mcpgo.Typed, gosdk.AddTool). A
// layer that refuses a call runs none inside it.
//
//	package        what it is for
//	wrap           the chain and its options (wrap/process: start-up, exit)
//	wrap/mcpgo     the mcp-go adapter: Attach, Tool, Typed, TypedPrompt, NewHTTPServer
//	wrap/gosdk     the go-sdk adapter: Attach, Run, Tool, AddTool
//	wrap/authz     who may call what: the caller, the policy, bearer tokens
//	wrap/upstream  a reconnecting holder for upstream clients, with a breaker
//	wrap/outbound  the calling side: classify answers, advise retries
//	wrap/limit     rate limits, local or shared through Redis
//
// ForTool gives one tool options that win over the Wrapper's. A Wrapper and
// every chain it runs are safe for concurrent use; options are evaluated
// once, in New.
package wrap
