// Package outbound gives the calling side of MCP (gateways, agents, any
// mcp-go client) the same rigour mcpwrap gives servers: every tools/call is
// classified at its three layers (HTTP, JSON-RPC envelope, tool result) into
// one Outcome, logged as one structured record, and optionally retried
// when that is safe.
//
// Two parts, used together:
//
//	hc := &http.Client{Transport: outbound.NewTransport(nil)}
//	tr, _ := transport.NewStreamableHTTP(url, transport.WithHTTPBasicClient(hc))
//	mc := client.NewClient(tr)
//	// Start, Initialize …
//	c := outbound.New(mc, outbound.WithLogger(logger),
//		outbound.WithRetry(RetryPolicy{}), outbound.WithIdempotent(outbound.IdempotentTools("get_forecast")))
//	rep := c.Call(ctx, req) // rep.Outcome, rep.HTTPStatuses, rep.Result, rep.Err
//
// Transport sees every POST of the session (status, content type, the body
// as the client reads it, SSE event by event until the response with the
// request's id) and classifies the tools/call ones as they stream, without
// buffering or delaying what mcp-go reads. Client.Call ties a call's POSTs
// to it through the context, so concurrent calls do not mix. Without
// Transport (stdio, in-process), Call classifies from what mcp-go decoded.
//
// Retries are off by default. With WithRetry they apply only to tools the
// WithIdempotent predicate accepts, bounded by the RetryPolicy (by
// default ≤ 2 retries, 200 ms exponential backoff with jitter, Retry-After
// wins). The HTTP-level outcome wins over what mcp-go returned: a 500 whose
// body looks like a result is HTTP_ERROR here, while mcp-go v1.2.1 hands the
// body to the caller as a result.
//
// outbound imports errs and nothing else of mcpwrap. Transport and Client
// are safe for concurrent use.
package outbound
