package errmap

import (
	"strconv"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errbase"
)

// The JSON-RPC codes of MCP's error answers.
const (
	codeParse            = -32700
	codeInvalidRequest   = -32600
	codeMethodNotFound   = -32601
	codeInvalidParams    = -32602
	codeInternal         = -32603
	codeResourceNotFound = -32002 // MCP: resource not found, before 2026-07-28
)

// ProtocolClass is the classification a protocol answer is logged with:
// err's own *errs.Error or standard error's code if it has one, else c,
// the code its adapter gave it, else what its JSON-RPC code says of whose
// mistake it is.
func ProtocolClass(err error, code int, c errs.Code) *errs.Error {
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

// Request names the resources/read or prompts/get request an RPCError
// answers. These methods have no isError result, so their failures are
// JSON-RPC errors.
type Request struct {
	// URI is the resource a resources/read asked for.
	URI string
	// Prompt is the prompt a prompts/get asked for.
	Prompt string
	// CallID ties the error to the operator's log line.
	CallID string
	// Attempts is how many times the handler ran; 0 means not counted.
	Attempts int
	// Modern is set for protocol 2026-07-28 and later, which report a
	// missing resource as -32602 instead of -32002 (as mcp-go does for a
	// URI no handler matches).
	Modern bool
	// Shown, when set, is the message the client reads in place of the
	// one ToResult would write, followed by the call id (see Call.Shown):
	// the text of a plain error the server lets the model read. The code
	// is then -32603.
	Shown string
}

// RPCError is the JSON-RPC error the client receives for a failed
// resources/read or prompts/get: Code, the model-safe Message, and Data, the
// machine-readable detail. Error returns Message, so an mcp-go handler that
// returns it sends that text. It is handed to SDKs and their hooks, so it is
// safe to inspect whatever the handler returned (see errbase.Guard): errors.Is and
// errors.As see the classified *Error and its cause, a panic in the cause's
// chain or a nil-pointer match counting as no match; it has no Unwrap, so
// nothing walks that chain unguarded.
type RPCError struct {
	Code    int
	Message string
	Data    RPCData
	err     *errs.Error
}

// RPCData is the data member of an RPCError: the same fields as the
// structuredContent of an error result (code, retryable, callId,
// violations…), plus the URI or prompt the request named.
type RPCData struct {
	errs.Info
	URI    string `json:"uri,omitempty"`
	Prompt string `json:"prompt,omitempty"`
}

// Error returns the message the client reads.
func (e *RPCError) Error() string { return e.Message }

// Is reports whether the classified error behind the JSON-RPC error, or
// its cause, matches target.
func (e *RPCError) Is(target error) bool {
	if e == nil || e.err == nil {
		return false
	}
	return errbase.SafeIs(e.err, target)
}

// As finds the first error in the classified error's chain that matches
// target (errors.As), the classified *Error itself first.
func (e *RPCError) As(target any) bool {
	if e == nil || e.err == nil {
		return false
	}
	return errbase.SafeAs(e.err, target)
}

// ToJSONRPC is the one place an error becomes a JSON-RPC error, for methods
// without isError. The code follows the MCP specification: NotFound is
// -32002 (resource not found) for a resources/read, with the URI in data
// (-32602 for protocol 2026-07-28 and later, and for a prompt); an
// InvalidArgument is -32602 naming the bad arguments; every other code is
// -32603. The message is what ToResult would show the model, so Internal and
// Fatal errors (and errors that classify as neither) are masked: the client
// reads a generic sentence with the call id, also in data.callId. A nil
// error describes an internal error.
func ToJSONRPC(err error, req Request) *RPCError {
	e := errs.From(err)
	if e == nil {
		e = internalError
	}
	req.URI = clipJSON(req.URI, maxExpectedBytes)
	req.Prompt = clipJSON(req.Prompt, maxNameBytes)
	subject := "prompt " + strconv.Quote(req.Prompt)
	if req.URI != "" {
		subject = "resource " + strconv.Quote(req.URI)
	}
	res := ToResult(e, Call{Subject: subject, ID: req.CallID, Attempts: req.Attempts, Shown: req.Shown})
	info := res.Info
	code := req.code(e.Code())
	if req.Shown != "" {
		code = codeInternal
	}
	return &RPCError{
		Code:    code,
		Message: info.Message,
		Data:    RPCData{Info: info, URI: req.URI, Prompt: req.Prompt},
		err:     e,
	}
}

func (req *Request) code(c errs.Code) int {
	switch c {
	case errs.NotFound:
		if req.URI != "" && !req.Modern {
			return codeResourceNotFound
		}
		return codeInvalidParams
	case errs.InvalidArgument:
		return codeInvalidParams
	}
	return codeInternal
}
