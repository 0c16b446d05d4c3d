// Package outbound is mcpwrap's calling side: for gateways, agents and any
// mcp-go client it tells what every tools/call came to, with the rigour
// mcpwrap gives servers.
//
// Classify checks a response at its three layers in order (HTTP status,
// JSON-RPC envelope, tool result) and gives one Outcome at a Layer, with a
// Verdict holding what a log line needs; it takes what http.Client.Do
// returned, so a request that got no response is classified too. A captured
// exchange is classified from an http.Response whose Body reads the
// captured bytes. Advise says, within RetryLimits, whether repeating the
// call is safe.
//
// For an mcp-go client, NewTransport and Client do it on every call:
//
//	hc := &http.Client{Transport: outbound.NewTransport(nil)}
//	tr, _ := transport.NewStreamableHTTP(url, transport.WithHTTPBasicClient(hc))
//	mc := client.NewClient(tr)
//	// Start, Initialize …
//	c := outbound.New(mc, outbound.WithLogger(logger.With("client", "gateway@1.4.0")),
//		outbound.WithRetry(outbound.RetryLimits{}),
//		outbound.WithIdempotent(func(tool string) bool { return tool == "get_forecast" }))
//	rep := c.Call(ctx, req) // rep.Outcome, rep.HTTPStatuses, rep.Result, rep.Err
//
// The RoundTripper of NewTransport sees every POST of the session (status,
// content type, the body as the client reads it, SSE event by event until
// the response with the request's id) and classifies the tools/call ones as
// they stream, without buffering or delaying what mcp-go reads. Client.Call
// ties a call's POSTs to it through the context, so concurrent calls do not
// mix; WithTrace shows the POSTs of any other context (Start, Initialize,
// ListTools). Without that RoundTripper (stdio, in-process), Call classifies
// from what mcp-go decoded.
//
// JSON-RPC ids are JSON text, as on the wire: 7 for a number, "abc" (quotes
// included) for a string; 1 and "1" are different ids, 1 and 1.0 the same.
//
// Retries are off by default. With WithRetry they apply only to tools the
// WithIdempotent predicate accepts, bounded by RetryLimits (by default ≤ 2
// retries, an exponential backoff from 200 ms with equal jitter, Retry-After
// wins up to 30 s). The HTTP-level outcome wins over what mcp-go returned: a
// 500 whose body looks like a result is HTTP_ERROR here, while mcp-go v1.2.1
// hands the body to the caller as a result. The log record's retryOrigin is
// "sdk" after such a retry; BusinessRetry and ManualRetry mark the calls the
// application or a person repeats.
//
// To test a client against broken servers, the outboundtest package serves a
// fault-injecting MCP server on loopback. outbound imports errs and nothing
// else of mcpwrap's public packages. The RoundTripper and Client are safe
// for concurrent use.
package outbound
