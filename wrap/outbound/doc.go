// Package outbound is mcpwrap's calling side: for gateways, agents and any
// mcp-go client it tells what every tools/call came to, with the rigour
// mcpwrap gives servers.
//
// Classify checks a response at its three layers in order (HTTP status,
// JSON-RPC envelope, tool result) and gives one Outcome at a Layer, with a
// Verdict holding what a log line needs; it takes what http.Client.Do
// returned, so a request that got no response is classified too. Advise
// says, within RetryLimits, whether repeating the call is safe.
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
// Retries are off by default, and with WithRetry apply only to the tools
// WithIdempotent accepts. docs/client.md tells the rest: the outcomes, how
// the RoundTripper reads a stream, JSON-RPC ids, retry origins, and the
// outboundtest server for testing a client against broken servers. The
// RoundTripper and Client are safe for concurrent use.
package outbound
