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
// gen_ai.tool.name, gen_ai.operation.name, jsonrpc.request.id,
// mcp.session.id, mcp.protocol.version, network.transport and error.type
// ("tool_error" for isError results); the metric is
// mcp.server.operation.duration. observe imports errs, never validate or
// wrap. An Observer is safe for concurrent use.
package observe
