// Package observe holds what a Wrapper's telemetry needs from the user:
// where spans and metrics go and which span attributes to record, given to
// wrap.WithTelemetry, and NewLogger, the logger of the per-call lines,
// given to wrap.WithLogger. Every MCP call then gets one JSON log line, one
// OpenTelemetry span and metrics following the MCP semantic conventions,
// with secrets redacted and the trace context taken from params._meta or
// the HTTP headers. It knows no SDK and links no exporter (observe/export
// sets the providers up from the OTEL_* variables):
//
//	tel, err := export.Setup(ctx, export.Config{ServiceName: "weather"})
//	…
//	mcpgo.Attach(s, wrap.New(wrap.WithLogger(observe.NewLogger()), wrap.WithTelemetry(tel.Options()...)))
//
// What is logged and redacted is set on the Wrapper: wrap.WithSecrets,
// wrap.WithArgumentValues, wrap.WithArgumentNamesOnly and
// wrap.WithoutArguments.
//
// NewLogger writes to stderr: JSON lines, or tint's coloured text on a
// terminal (MCPWRAP_LOG_LEVEL, MCPWRAP_LOG_FORMAT). WithLogBuffer takes the
// write off the call's path (another goroutine writes it at once), for
// stdio servers; a line at ERROR or above is written through before the
// call returns.
//
// The span is "tools/call {tool}" ("resources/read", "prompts/get {name}"),
// kind SERVER, with mcp.method.name, gen_ai.tool.name, jsonrpc.request.id,
// mcp.session.id (only when the protocol has a session),
// mcp.protocol.version, network.transport and error.type ("tool_error" for
// isError results, the JSON-RPC code for protocol errors); the metric is
// mcp.server.operation.duration. Every request gets exactly one line, one
// span and one duration point, also those the SDK answers before any
// handler, and never a call twice.
//
// Arguments are logged by name, JSON type and size, never their values
// ({"path":"<string, 12 bytes>"}), capped at 2 KiB;
// wrap.WithoutArguments logs none. wrap.WithArgumentValues (every tool or
// the named ones) logs values, redacted: values under secret names
// (wrap.WithSecrets adds to the defaults), fields tagged mcpwrap:"secret",
// secret-shaped values and PEM blocks never appear. A call whose
// model-facing message was replaced by a generic one says masked=true on
// the line and mcpwrap.masked on the span.
//
// observe imports neither validate nor wrap. Its options are evaluated
// once, in wrap.New.
package observe
