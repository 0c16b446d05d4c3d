package wrap

import (
	"errors"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
)

// ProtocolError marks err as one that must reach the client as a JSON-RPC
// error instead of a tool result: the escape hatch for the rare
// protocol-level failure. The SDK sends err's text as the message, so that
// text must be safe to show; the code is -32603. ProtocolError(nil) is nil.
func ProtocolError(err error) error { return call.ProtocolError(err, call.CodeInternal, errs.Internal) }

// The JSON-RPC codes of a protocol answer that say whose mistake it is.
const (
	codeInvalidParams    = -32602
	codeInvalidRequest   = -32600
	codeParse            = -32700
	codeMethodNotFound   = -32601
	codeResourceNotFound = -32002
)

// protocolClass is the classification a protocol answer is logged with: its
// own *errs.Error or standard error's code if it has one, else the code its
// adapter gave it, else what its JSON-RPC code says of whose mistake it is.
func protocolClass(err error, code int, c errs.Code) *errs.Error {
	e := errs.From(err)
	if e.Code() != errs.Internal {
		return e
	}
	if c == errs.Internal {
		switch code {
		case codeInvalidParams, codeInvalidRequest, codeParse, codeMethodNotFound:
			c = errs.InvalidArgument
		case codeResourceNotFound:
			c = errs.NotFound
		}
	}
	if c == errs.Internal {
		return e
	}
	return errs.Wrap(c, err, "")
}

// panicOf returns the panicError in err's chain, if any.
func panicOf(err error) *panicError {
	var p *panicError
	if errors.As(err, &p) {
		return p
	}
	return nil
}
