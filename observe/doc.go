// Package observe gives every MCP call one JSON log line, one OpenTelemetry
// span and metrics following the MCP semantic conventions, with secrets
// redacted and the trace context taken from params._meta or the HTTP
// headers. It knows no SDK and links no exporter (observe/export sets them
// up from the OTEL_* variables). The one way in is an Observer given to the
// chain:
//
//	obs := observe.New(append(tel.Options(), observe.WithLogger(observe.NewLogger()))...)
//	mcpgo.Attach(s, wrap.New(wrap.WithObserver(obs)))
//
// NewLogger writes to stderr: JSON lines, or tint's coloured text on a
// terminal (EnvLogLevel, EnvLogFormat). WithLogBuffer takes the write off
// the call's path (another goroutine writes it at once), for stdio
// servers; a line at ERROR or above is written through before the call
// returns.
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
// ({"path":"<string, 12 bytes>"}), capped at DefaultMaxArgumentBytes;
// WithoutArguments logs none. WithArgumentValues (every tool or the named
// ones) logs values, redacted: values under secret names (WithSecretNames
// adds to the defaults), fields tagged mcpwrap:"secret", secret-shaped
// values and PEM blocks never appear.
// Report.Masked marks a call whose model-facing message was replaced by a
// generic one (masked=true on the line, mcpwrap.masked on the span).
//
// observe imports errs, never validate or wrap. An Observer is safe for
// concurrent use.
package observe
