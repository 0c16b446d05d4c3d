package wrap

import "errors"

// ProtocolError marks err as one that must reach the client as a JSON-RPC
// error instead of a tool result: the escape hatch for the rare
// protocol-level failure. The SDK sends err's text as the message, so that
// text must be safe to show; the code is -32603. ProtocolError(nil) is nil.
func ProtocolError(err error) error { return ProtocolErrorCode(err, codeInternal) }

// ProtocolErrorCode is ProtocolError for an error the SDK sends with its own
// JSON-RPC code: how an adapter passes through an SDK's protocol answers
// (mcp-go's URL elicitation) so that the log line and span carry the code on
// the wire.
func ProtocolErrorCode(err error, code int) error {
	if err == nil {
		return nil
	}
	return &protocolError{err: err, code: code}
}

// codeInternal is JSON-RPC's internal error.
const codeInternal = -32603

type protocolError struct {
	err  error
	code int
}

func (p *protocolError) Error() string { return p.err.Error() }
func (p *protocolError) Unwrap() error { return p.err }

// protocolCause returns the error to hand to the SDK unchanged, if err
// must stay a protocol error.
func protocolCause(err error) (error, bool) {
	var p *protocolError
	if errors.As(err, &p) {
		return p.err, true
	}
	return nil, false
}

// protocolCode is the JSON-RPC code of a protocol error.
func protocolCode(err error) int {
	var p *protocolError
	if errors.As(err, &p) {
		return p.code
	}
	return codeInternal
}

// panicOf returns the PanicError in err's chain, if any.
func panicOf(err error) *PanicError {
	var p *PanicError
	if errors.As(err, &p) {
		return p
	}
	return nil
}
