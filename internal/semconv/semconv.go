// Package semconv holds the names observe writes: the OpenTelemetry MCP
// semantic conventions' attribute keys, metric names and values, mcpwrap's
// own attribute keys, and the keys of the JSON log line. They are constants
// in one place so that the span, the metric and the log agree, and so that
// tests can name them without the public API carrying them.
package semconv

// ScopeName is the instrumentation scope of every span and metric.
const ScopeName = "github.com/mcpwrap/mcpwrap/observe"

// ScopeVersion is the version of the instrumentation scope.
const ScopeVersion = "0.1.0"

// Attribute keys of the OpenTelemetry MCP semantic conventions.
const (
	AttrMethodName       = "mcp.method.name"
	AttrToolName         = "gen_ai.tool.name"
	AttrOperationName    = "gen_ai.operation.name"
	AttrRequestID        = "jsonrpc.request.id"
	AttrSessionID        = "mcp.session.id"
	AttrProtocolVersion  = "mcp.protocol.version"
	AttrNetworkTransport = "network.transport"
	AttrErrorType        = "error.type"
	AttrRPCStatusCode    = "rpc.response.status_code"
	AttrToolArguments    = "gen_ai.tool.call.arguments"
	AttrToolResult       = "gen_ai.tool.call.result"
)

// Attribute keys of mcpwrap.
const (
	AttrErrorCode = "mcpwrap.error.code"
	AttrOutcome   = "mcpwrap.outcome"
	AttrCallID    = "mcpwrap.call.id"
	AttrAttempts  = "mcpwrap.attempts"
	AttrMasked    = "mcpwrap.masked"
	AttrCutFrom   = "mcpwrap.result.cut_from_bytes"
	AttrUpstream  = "mcpwrap.upstream"
	// AttrTaskID is the id of the task a call created, or whose work the
	// span is.
	AttrTaskID = "mcpwrap.task.id"
	// AttrCache is how the call cache served a call: hit, miss or joined.
	AttrCache = "mcpwrap.cache"
	// The authorization decision of a call (wrap.WithAuthorization).
	AttrAuthzDecision = "mcpwrap.authz.decision"
	AttrAuthzReason   = "mcpwrap.authz.reason"
	AttrAuthzSubject  = "mcpwrap.authz.subject"
	AttrAuthzRequired = "mcpwrap.authz.required_scopes"
	AttrAuthzGranted  = "mcpwrap.authz.granted_scopes"
	AttrAuthzMissing  = "mcpwrap.authz.missing_scopes"
	// AttrEvent replaces an event attribute named "event", which Jaeger's
	// classic API would show instead of the event's name.
	AttrEvent = "mcpwrap.event"
)

// Exception event attributes.
const (
	EventException          = "exception"
	AttrExceptionType       = "exception.type"
	AttrExceptionMessage    = "exception.message"
	AttrExceptionStacktrace = "exception.stacktrace"
)

// Attribute values.
const (
	MethodToolsCall      = "tools/call"
	OperationExecuteTool = "execute_tool"
	ErrorTypeToolError   = "tool_error"
	TransportPipe        = "pipe"
	TransportTCP         = "tcp"
)

// Metric names.
const (
	MetricOperationDuration = "mcp.server.operation.duration"
	MetricRetries           = "mcpwrap.tool.retries"
	MetricReconnects        = "mcpwrap.tool.reconnects"
	MetricPanics            = "mcpwrap.tool.panics"
	MetricRepeated          = "mcpwrap.tool.repeated_failures"
	// MetricDenials counts the requests a policy did not allow, by tool
	// and AttrAuthzReason.
	MetricDenials = "mcpwrap.authz.denials"
	EventRepeated = "mcpwrap.repeated_failure"
	// MetricHandlers counts the tool handlers holding a slot of wrap's
	// bulkhead, by tool and AttrHandlerState.
	MetricHandlers = "mcpwrap.tool.handlers"
)

// AttrHandlerState is the state attribute of MetricHandlers, and its
// values.
const (
	AttrHandlerState = "mcpwrap.handler.state"
	HandlerRunning   = "running"
	HandlerAbandoned = "abandoned"
)

// DurationBuckets returns the semantic conventions' bucket boundaries for
// mcp.server.operation.duration, in seconds (a new slice each call).
func DurationBuckets() []float64 {
	return []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}
}

// EventPanic is the span event of a recovered panic.
const EventPanic = "panic"

// Log line keys.
const (
	KeyTool            = "tool"
	KeyCallID          = "call_id"
	KeyRequestID       = "request_id"
	KeySessionID       = "session_id"
	KeyProtocolVersion = "protocol_version"
	KeyArguments       = "arguments"
	KeyArgumentSizes   = "argument_sizes"
	KeyDurationMS      = "duration_ms"
	KeyOutcome         = "outcome"
	KeyAttempts        = "attempts"
	KeyCode            = "code"
	KeyErrorType       = "error_type"
	KeyCause           = "cause"
	KeyStack           = "stack"
	KeyTraceID         = "trace_id"
	KeySpanID          = "span_id"
	KeyEvent           = "event"
	KeyDiscarded       = "result_discarded"
	KeyCutFrom         = "result_cut_from_bytes"
	KeyMasked          = "masked"
	KeyJSONRPCCode     = "jsonrpc_code"
	KeyLateMS          = "late_ms"
	KeyTaskID          = "task_id"
	KeyCache           = "cache"
	// KeyAuthz is the group of the authorization decision: its keys are
	// decision, reason, subject, required, granted, missing.
	KeyAuthz = "authz"
)

// Log messages.
const (
	MsgToolCall      = "tool call"
	MsgToolCallEvent = "tool call event"
	MsgLate          = "tool finished after its call was answered; result dropped"
)
