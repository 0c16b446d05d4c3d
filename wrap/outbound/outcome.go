package outbound

// Outcome is what one tools/call came to, seen from the calling side: one of
// a closed set of twelve. Eight follow from the three layers (success, tool
// error, input required, JSON-RPC error, malformed JSON, invalid envelope,
// invalid tool result, HTTP error); four name what a live exchange adds (a
// stream that ends early, a 202, a body past the read limit, no response at
// all). Its text is the SCREAMING_SNAKE name that log lines and the probe's
// output show; the zero value "" is no outcome.
type Outcome string

// The outcomes, in the order the classifier checks the layers. Their names
// are stable: they appear in log lines and the probe's output.
const (
	// OutcomeToolSuccess is a complete result whose isError is absent or false.
	OutcomeToolSuccess Outcome = "TOOL_SUCCESS"
	// OutcomeHTTPError is an HTTP status outside 2xx. It takes precedence over any
	// body, even one that looks like a successful result.
	OutcomeHTTPError Outcome = "HTTP_ERROR"
	// OutcomeJSONRPCError is a well-formed JSON-RPC error member (e.g. -32602).
	OutcomeJSONRPCError Outcome = "JSONRPC_ERROR"
	// OutcomeToolError is a complete result with isError true: the protocol
	// exchange finished, the tool failed.
	OutcomeToolError Outcome = "TOOL_ERROR"
	// OutcomeInputRequired is a result with resultType "input_required" (2026-07-28
	// multi round-trip): not an error and not final; answer it with
	// inputResponses in a new request with a new JSON-RPC id. Without
	// inputRequests it must carry a requestState (the server sheds load:
	// repeat the request with it); with neither it is OutcomeInvalidToolResult.
	OutcomeInputRequired Outcome = "INPUT_REQUIRED"
	// OutcomeMalformedJSON is a body (or SSE event) that does not parse as JSON, or
	// a 2xx answer whose content type is neither JSON nor an event stream.
	OutcomeMalformedJSON Outcome = "MALFORMED_JSON"
	// OutcomeInvalidEnvelope is JSON that is not a JSON-RPC 2.0 response to this
	// request: not an object (a batch array, say), jsonrpc not "2.0", an id
	// that differs from the request's (in a JSON body; an event stream skips
	// responses to other ids), both or neither of result and error, or an
	// error without an integer code and a string message.
	OutcomeInvalidEnvelope Outcome = "INVALID_ENVELOPE"
	// OutcomeInvalidToolResult is a response whose result is not a CallToolResult:
	// not an object, an unknown resultType, content not an array, isError
	// present but not a boolean, input_required without inputRequests or
	// requestState.
	OutcomeInvalidToolResult Outcome = "INVALID_TOOL_RESULT"
	// OutcomeIncompleteStream is a 200 whose body ended (cleanly or not) before the
	// JSON-RPC response with the request's id arrived: an SSE stream that
	// stopped early, or a body cut by a broken connection. Not a success.
	OutcomeIncompleteStream Outcome = "INCOMPLETE_STREAM"
	// OutcomeNotToolCallResponse is a 202 Accepted (or 204): the answer to a
	// notification, never to a tools/call.
	OutcomeNotToolCallResponse Outcome = "NOT_TOOL_CALL_RESPONSE"
	// OutcomeBodyTooLarge is a response message larger than the classifier's read
	// limit; reading stopped at the limit.
	OutcomeBodyTooLarge Outcome = "BODY_TOO_LARGE"
	// OutcomeNetworkError means no HTTP response arrived at all: refused, reset,
	// closed before the status line, or timed out.
	OutcomeNetworkError Outcome = "NETWORK_ERROR"
)

// outcomes lists every outcome, in declaration order.
var outcomes = [...]Outcome{
	OutcomeToolSuccess, OutcomeHTTPError, OutcomeJSONRPCError, OutcomeToolError, OutcomeInputRequired,
	OutcomeMalformedJSON, OutcomeInvalidEnvelope, OutcomeInvalidToolResult, OutcomeIncompleteStream,
	OutcomeNotToolCallResponse, OutcomeBodyTooLarge, OutcomeNetworkError,
}

// Layer returns the layer the outcome is decided at; LayerTransport for a
// value outside the twelve.
func (o Outcome) Layer() Layer {
	switch o {
	case OutcomeToolSuccess, OutcomeToolError:
		return LayerApplication
	case OutcomeInputRequired:
		return LayerInteraction
	case OutcomeJSONRPCError, OutcomeMalformedJSON, OutcomeInvalidEnvelope, OutcomeInvalidToolResult:
		return LayerProtocol
	}
	return LayerTransport
}

// Layer is where in a tools/call an outcome is decided: the HTTP transport,
// the JSON-RPC envelope, the interaction (multi round-trip) or the tool. Its
// text is the name log lines show.
type Layer string

// The layers, outermost first.
const (
	LayerTransport   Layer = "transport"
	LayerProtocol    Layer = "protocol"
	LayerInteraction Layer = "interaction"
	LayerApplication Layer = "application"
)
