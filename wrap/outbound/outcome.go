package outbound

import "fmt"

// Outcome is what one tools/call came to, seen from the calling side: one of
// a closed set of twelve. Eight follow from the three layers (success, tool
// error, input required, JSON-RPC error, malformed JSON, invalid envelope,
// invalid tool result, HTTP error); four name what a live exchange adds (a
// stream that ends early, a 202, a body past the read limit, no response at
// all). The zero value is TOOL_SUCCESS only in name: a Verdict always sets
// its outcome explicitly.
type Outcome uint8

// The outcomes, in the order the classifier checks the layers. Their String
// forms are stable: they appear in log lines and the probe's output.
const (
	// OutcomeToolSuccess is a complete result whose isError is absent or false.
	OutcomeToolSuccess Outcome = iota
	// OutcomeHTTPError is an HTTP status outside 2xx. It takes precedence over any
	// body, even one that looks like a successful result.
	OutcomeHTTPError
	// OutcomeJSONRPCError is a well-formed JSON-RPC error member (e.g. -32602).
	OutcomeJSONRPCError
	// OutcomeToolError is a complete result with isError true: the protocol
	// exchange finished, the tool failed.
	OutcomeToolError
	// OutcomeInputRequired is a result with resultType "input_required" (2026-07-28
	// multi round-trip): not an error and not final; answer it with
	// inputResponses in a new request with a new JSON-RPC id. Without
	// inputRequests it must carry a requestState (the server sheds load:
	// repeat the request with it); with neither it is OutcomeInvalidToolResult.
	OutcomeInputRequired
	// OutcomeMalformedJSON is a body (or SSE event) that does not parse as JSON, or
	// a 2xx answer whose content type is neither JSON nor an event stream.
	OutcomeMalformedJSON
	// OutcomeInvalidEnvelope is JSON that is not a JSON-RPC 2.0 response to this
	// request: not an object (a batch array, say), jsonrpc not "2.0", an id
	// that differs from the request's (in a JSON body; an event stream skips
	// responses to other ids), both or neither of result and error, or an
	// error without an integer code and a string message.
	OutcomeInvalidEnvelope
	// OutcomeInvalidToolResult is a response whose result is not a CallToolResult:
	// not an object, an unknown resultType, content not an array, isError
	// present but not a boolean, input_required without inputRequests or
	// requestState.
	OutcomeInvalidToolResult
	// OutcomeIncompleteStream is a 200 whose body ended (cleanly or not) before the
	// JSON-RPC response with the request's id arrived: an SSE stream that
	// stopped early, or a body cut by a broken connection. Not a success.
	OutcomeIncompleteStream
	// OutcomeNotToolCallResponse is a 202 Accepted (or 204): the answer to a
	// notification, never to a tools/call.
	OutcomeNotToolCallResponse
	// OutcomeBodyTooLarge is a response message larger than the classifier's read
	// limit; reading stopped at the limit.
	OutcomeBodyTooLarge
	// OutcomeNetworkError means no HTTP response arrived at all: refused, reset,
	// closed before the status line, or timed out.
	OutcomeNetworkError
	numOutcomes = iota
)

var outcomeNames = [numOutcomes]string{
	OutcomeToolSuccess:         "TOOL_SUCCESS",
	OutcomeHTTPError:           "HTTP_ERROR",
	OutcomeJSONRPCError:        "JSONRPC_ERROR",
	OutcomeToolError:           "TOOL_ERROR",
	OutcomeInputRequired:       "INPUT_REQUIRED",
	OutcomeMalformedJSON:       "MALFORMED_JSON",
	OutcomeInvalidEnvelope:     "INVALID_ENVELOPE",
	OutcomeInvalidToolResult:   "INVALID_TOOL_RESULT",
	OutcomeIncompleteStream:    "INCOMPLETE_STREAM",
	OutcomeNotToolCallResponse: "NOT_TOOL_CALL_RESPONSE",
	OutcomeBodyTooLarge:        "BODY_TOO_LARGE",
	OutcomeNetworkError:        "NETWORK_ERROR",
}

var outcomeLayers = [numOutcomes]Layer{
	OutcomeToolSuccess:         LayerApplication,
	OutcomeHTTPError:           LayerTransport,
	OutcomeJSONRPCError:        LayerProtocol,
	OutcomeToolError:           LayerApplication,
	OutcomeInputRequired:       LayerInteraction,
	OutcomeMalformedJSON:       LayerProtocol,
	OutcomeInvalidEnvelope:     LayerProtocol,
	OutcomeInvalidToolResult:   LayerProtocol,
	OutcomeIncompleteStream:    LayerTransport,
	OutcomeNotToolCallResponse: LayerTransport,
	OutcomeBodyTooLarge:        LayerTransport,
	OutcomeNetworkError:        LayerTransport,
}

// String returns the outcome's SCREAMING_SNAKE name, e.g. "JSONRPC_ERROR".
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome(%d)", uint8(o))
}

// MarshalText makes an Outcome its name in JSON and in slog text.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// Layer returns the layer the outcome is decided at.
func (o Outcome) Layer() Layer {
	if int(o) < len(outcomeLayers) {
		return outcomeLayers[o]
	}
	return LayerTransport
}

// Valid reports whether o is one of the defined outcomes.
func (o Outcome) Valid() bool { return int(o) < len(outcomeNames) }

// Outcomes returns every outcome, in declaration order.
func Outcomes() []Outcome {
	out := make([]Outcome, numOutcomes)
	for i := range out {
		out[i] = Outcome(i)
	}
	return out
}

// ParseOutcome is the inverse of Outcome.String.
func ParseOutcome(s string) (Outcome, bool) {
	for i, n := range outcomeNames {
		if n == s {
			return Outcome(i), true
		}
	}
	return OutcomeToolSuccess, false
}

// Layer is where in a tools/call an outcome is decided: the HTTP transport,
// the JSON-RPC envelope, the interaction (multi round-trip) or the tool.
type Layer uint8

// The layers, outermost first.
const (
	LayerTransport Layer = iota
	LayerProtocol
	LayerInteraction
	LayerApplication
)

// String returns "transport", "protocol", "interaction" or "application".
func (l Layer) String() string {
	switch l {
	case LayerTransport:
		return "transport"
	case LayerProtocol:
		return "protocol"
	case LayerInteraction:
		return "interaction"
	case LayerApplication:
		return "application"
	}
	return fmt.Sprintf("layer(%d)", uint8(l))
}

// MarshalText makes a Layer its name in JSON and in slog text.
func (l Layer) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText is the inverse of MarshalText.
func (o *Outcome) UnmarshalText(b []byte) error {
	v, ok := ParseOutcome(string(b))
	if !ok {
		return fmt.Errorf("outbound: unknown outcome %q", b)
	}
	*o = v
	return nil
}

// UnmarshalText is the inverse of MarshalText.
func (l *Layer) UnmarshalText(b []byte) error {
	for _, v := range []Layer{LayerTransport, LayerProtocol, LayerInteraction, LayerApplication} {
		if v.String() == string(b) {
			*l = v
			return nil
		}
	}
	return fmt.Errorf("outbound: unknown layer %q", b)
}
