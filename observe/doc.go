// Package observe gives every tool call a JSON log line, an OpenTelemetry
// span and metrics following the MCP semantic conventions, with secrets
// redacted and the trace context taken from params._meta or the HTTP headers.
//
//	tel, err := export.Setup(ctx, export.WithServiceName("weather")) // observe/export: OTEL_* env; nothing set = no export
//	if err != nil {
//		return err
//	}
//	defer tel.Shutdown(context.Background())
//
//	obs := observe.New(append(tel.Options(), observe.WithLogger(observe.NewLogger()))...)
//	s := server.NewMCPServer("weather", "1.0.0", append(obs.ServerOptions(),
//		server.WithToolHandlerMiddleware(wrap.Middleware(wrap.WithObserver(obs))))...)
//
// The span is "tools/call {tool}", kind SERVER, with mcp.method.name,
// gen_ai.tool.name, gen_ai.operation.name, jsonrpc.request.id (with
// ServerOptions), mcp.protocol.version, network.transport and error.type
// ("tool_error" for isError results, the JSON-RPC code for protocol
// errors); the metric is mcp.server.operation.duration. mcp.session.id
// (session_id in the log line) is present only when the request belongs
// to a session: stdio and streamable HTTP after the 2025-11-25 (or older)
// initialize handshake. Under protocol 2026-07-28 there is no handshake and
// no session, so it is absent.
//
// Every tools/call request gets exactly one log line, one span and one
// duration point. The middleware chain (wrap) records the calls it runs;
// the hooks of ServerOptions record those mcp-go answers before any
// middleware — an unknown tool (-32602), unparsable params (-32600), an
// input schema validation failure (an isError result) — and never a call
// twice.
//
// Arguments are logged redacted and capped (DefaultMaxArgumentBytes):
// values under secret names, fields tagged mcpwrap:"secret", secret-shaped
// values and PEM blocks or other key material never appear.
// WithArgumentNamesOnly logs names and sizes only, WithoutArguments
// nothing, for every tool or the named ones. Operator text (causes,
// stacks, event attributes) is cut before it is scrubbed, so its cost does
// not grow with its size, and is valid UTF-8 with bidi controls escaped.
// Nothing is formatted for a span that does not record.
//
// Report.Masked marks a call whose model-facing message was replaced by a
// generic one (masked=true, mcpwrap.masked). Redactor.Secrets and Scrub clean
// text for the model with the log line's redaction; Observer.Log writes a redacted
// operator line. observe imports errs, never validate or wrap. An Observer
// is safe for concurrent use.
package observe
