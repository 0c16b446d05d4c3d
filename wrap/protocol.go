package wrap

import (
	"context"
	"errors"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// ProtocolError marks err as one that must reach the client as a JSON-RPC
// error instead of a tool result: the escape hatch for the rare protocol-level
// failure. mcp-go sends it as -32603 with err's text as the message, so that
// text must be safe to show. ProtocolError(nil) is nil.
//
// An mcp.URLElicitationRequiredError passes through without this mark, since
// mcp-go turns it into its own protocol answer.
func ProtocolError(err error) error {
	if err == nil {
		return nil
	}
	return &protocolError{err: err}
}

type protocolError struct{ err error }

func (p *protocolError) Error() string { return p.err.Error() }
func (p *protocolError) Unwrap() error { return p.err }

// protocolCause returns the error to hand to mcp-go unchanged, if err must
// stay a protocol error.
func protocolCause(err error) (error, bool) {
	var p *protocolError
	if errors.As(err, &p) {
		return p.err, true
	}
	if isURLElicitation(err) {
		return err, true
	}
	return nil, false
}

func isURLElicitation(err error) bool {
	var v mcp.URLElicitationRequiredError
	var ptr *mcp.URLElicitationRequiredError
	return errors.As(err, &v) || errors.As(err, &ptr)
}

// wireCode is the JSON-RPC code mcp-go v1.2.1 sends for err, a protocol
// error the chain handed it (server/handler_errors.go, handlerError): a
// URL elicitation is -32042 only for clients before protocol 2026-07-28,
// which reserves that code and asks through a multi round-trip request
// instead; everything else is -32603. The log and the span say what the
// client read.
func wireCode(ctx context.Context, err error) int {
	if isURLElicitation(err) && !mcp.IsModernProtocol(server.RequestProtocolVersion(ctx)) {
		return mcp.URL_ELICITATION_REQUIRED
	}
	return mcp.INTERNAL_ERROR
}

// panicOf returns the PanicError in err's chain, if any.
func panicOf(err error) *PanicError {
	var p *PanicError
	if errors.As(err, &p) {
		return p
	}
	return nil
}
