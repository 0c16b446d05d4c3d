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

// panicOf returns the panicError in err's chain, if any.
func panicOf(err error) *panicError {
	var p *panicError
	if errors.As(err, &p) {
		return p
	}
	return nil
}
