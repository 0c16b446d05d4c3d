package call

import (
	"context"
	"errors"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
)

// Handler is an SDK-neutral handler: the SDK's handler, called by an
// adapter, with its result seen as a Result.
type Handler func(ctx context.Context, req *Request) (Result, error)

// Answer is what the chain made of a request, for the adapter to send.
// Exactly one of Result, Error, RPC and Protocol is set.
type Answer struct {
	// Result is the handler's own result, sent unchanged: a success, an
	// isError result the handler built (its text scrubbed), or an
	// input_required result.
	Result Result
	// Error is the error result a tool call is answered with: isError, one
	// text content Error.Text and structuredContent Error.Structured().
	Error *errmap.Result
	// RPC is the JSON-RPC error a resources/read or prompts/get is
	// answered with.
	RPC *errmap.RPCError
	// Protocol is an error the SDK must get as the handler gave it
	// (wrap.ProtocolError, ProtocolError): behind errbase.Guard, so that its
	// text and what errors.Is and errors.As find in it are the handler's,
	// and a broken method in its chain cannot panic in the SDK.
	Protocol error
	// Detached is set when the handler still runs after the answer (a
	// timeout abandoned it): the adapter must not reuse what it handed the
	// chain for this request.
	Detached bool
}

// CodeInternal is the JSON-RPC code of a protocol error that names none
// (wrap.ProtocolError).
const CodeInternal = -32603

// ProtocolError marks err as one the SDK must send as a JSON-RPC error with
// code: how an adapter passes through an SDK's own protocol answers
// (mcp-go's URL elicitation, go-sdk's unknown tool) so that the log line and
// span carry the code on the wire. c is the errs code the adapter knows the
// answer by (errs.NotFound for an unknown tool, logged at WARN);
// errs.Internal means unknown: the code decides (-32602, -32600, -32700,
// -32601 are the client's mistake, invalid_argument; -32002 not_found; any
// other internal). ProtocolError(nil, …) is nil.
func ProtocolError(err error, code int, c errs.Code) error {
	if err == nil {
		return nil
	}
	return &protocolError{err: err, code: code, class: c}
}

type protocolError struct {
	err   error
	code  int
	class errs.Code
}

func (p *protocolError) Error() string { return p.err.Error() }
func (p *protocolError) Unwrap() error { return p.err }

// ProtocolOf returns, when err is marked by ProtocolError, the error to hand
// to the SDK unchanged, its JSON-RPC code and the errs code its adapter gave
// it.
func ProtocolOf(err error) (cause error, code int, c errs.Code, ok bool) {
	var p *protocolError
	if errors.As(err, &p) && p != nil {
		return p.err, p.code, p.class, true
	}
	return nil, CodeInternal, errs.Internal, false
}
