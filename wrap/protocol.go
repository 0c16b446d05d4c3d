package wrap

import (
	"errors"

	"github.com/mcpwrap/mcpwrap/errs"
)

// ProtocolError marks err as one that must reach the client as a JSON-RPC
// error instead of a tool result: the escape hatch for the rare
// protocol-level failure. The SDK sends err's text as the message, so that
// text must be safe to show; the code is -32603. ProtocolError(nil) is nil.
func ProtocolError(err error) error { return ProtocolErrorCode(err, codeInternal) }

// ProtocolErrorCode is ProtocolError for an error the SDK sends with its own
// JSON-RPC code: how an adapter passes through an SDK's protocol answers
// (mcp-go's URL elicitation) so that the log line and span carry the code on
// the wire. An unclassified error sent as -32602, -32600, -32700 or -32601
// is the client's mistake and is logged as invalid_argument (-32002, a
// resource not found: not_found) at WARN; any other as internal at ERROR.
func ProtocolErrorCode(err error, code int) error { return ProtocolErrorFor(err, code, errs.Internal) }

// ProtocolErrorFor is ProtocolErrorCode for an answer whose errs code the
// adapter knows: an SDK's own answer to a client's mistake, such as go-sdk's
// -32602 "unknown tool", is logged as c (errs.NotFound) at WARN, not as a
// server fault. errs.Internal means unknown: the code decides, as for
// ProtocolErrorCode. err reaches the SDK unchanged.
func ProtocolErrorFor(err error, code int, c errs.Code) error {
	if err == nil {
		return nil
	}
	return &protocolError{err: err, code: code, class: c}
}

// The JSON-RPC codes of a protocol answer (codeInternal is the default).
const (
	codeInternal         = -32603
	codeInvalidParams    = -32602
	codeInvalidRequest   = -32600
	codeParse            = -32700
	codeMethodNotFound   = -32601
	codeResourceNotFound = -32002
)

type protocolError struct {
	err   error
	code  int
	class errs.Code
}

func (p *protocolError) Error() string { return p.err.Error() }
func (p *protocolError) Unwrap() error { return p.err }

// protocolCause returns the error to hand to the SDK unchanged, if err
// must stay a protocol error.
func protocolCause(err error) (error, bool) {
	var p *protocolError
	if errors.As(err, &p) && p != nil {
		return p.err, true
	}
	return nil, false
}

// protocolCode is the JSON-RPC code of a protocol error and the errs code
// its adapter gave it.
func protocolCode(err error) (int, errs.Code) {
	var p *protocolError
	if errors.As(err, &p) && p != nil {
		return p.code, p.class
	}
	return codeInternal, errs.Internal
}

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

// panicOf returns the PanicError in err's chain, if any.
func panicOf(err error) *PanicError {
	var p *PanicError
	if errors.As(err, &p) {
		return p
	}
	return nil
}
