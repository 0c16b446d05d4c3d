// Package call describes one MCP request and its answer without naming an
// SDK: it is what an SDK adapter (wrap/mcpgo, wrap/gosdk) hands the chain in
// package wrap, and what the chain, errs, validate and observe read. A
// server's code never builds these values; an adapter converts at the edge,
// once per request.
package call

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// Kind is the method a request belongs to.
type Kind uint8

// The methods the chain serves.
const (
	Tool     Kind = iota // tools/call
	Resource             // resources/read
	Prompt               // prompts/get
)

// Request is one request, as the chain sees it. An adapter fills it from
// the SDK's request; the chain does not keep it past the call.
type Request struct {
	Kind Kind
	// Name is the tool's or prompt's name; for a resource, the URI.
	Name string
	// Args are the arguments as decoded by the SDK (a map[string]any for a
	// tool, map[string]string for a prompt); nil when there are none or
	// only Raw is known.
	Args any
	// Raw are the arguments as the client sent them, when the SDK keeps
	// them; the chain decodes them lazily, only when it must.
	Raw json.RawMessage
	// Header holds the HTTP headers of the request (nil over stdio).
	Header http.Header
	// Meta is params._meta (trace context, progress token).
	Meta map[string]any
	// Session is the MCP session id ("" when stateless or unknown).
	Session string
	// Protocol is the negotiated protocol version, when known.
	Protocol string
	// RequestID is the JSON-RPC request id, formatted, when the SDK gives it.
	RequestID string
	// Modern says the client speaks a protocol version whose resource
	// errors follow 2026-07-28 (not found is -32602, not -32002).
	Modern bool
	// Tool describes the tool being called, when the adapter knows it.
	Tool Info
	// Lookup finds the tool's definition when Tool is not Known; nil when
	// the adapter cannot.
	Lookup Lookup
	// Identify returns who makes the request, as the adapter finds it (a
	// verified token's caller, the process owner over stdio); the zero
	// Caller, anonymous and granted nothing, when it finds none. nil: the
	// adapter cannot tell. The chain calls it only under a policy.
	Identify func(ctx context.Context, r *Request) authz.Caller
	// Ask asks the user to confirm the call (MCP elicitation); nil when the
	// adapter cannot ask.
	Ask func(ctx context.Context, r *Request, message string) (Reply, error)
	// Rounds lets the chain take part in multi round-trip calls; nil when
	// the adapter cannot.
	Rounds Rounds
	// Registered returns what the server registered that a resources/read
	// or prompts/get names: the prompt's name, the resource's URI, or, for
	// a URI a resource template serves, the template's URI template (""
	// when the adapter cannot tell which template). ok is false when the
	// server has none: a name the client made up. nil: the adapter cannot
	// tell. The chain calls it only to warn of a registration no policy
	// declares.
	Registered func(ctx context.Context, r *Request) (name string, ok bool)
	// Unknown returns the answer the SDK gives a request for a name it does
	// not know (an unknown tool, prompt or resource), marked ProtocolError,
	// for a name the caller may not know of; nil: a not_found answer.
	Unknown func(r *Request) error
	// Decode makes a result of what Keeper.Encode returned for a request
	// of the same kind (a shared cache's answer); nil: the adapter cannot.
	Decode func(data []byte) (Result, error)
	// SDK is the adapter's own value for the request (the SDK's request,
	// its handler), for the Handler the adapter gives the chain. The chain
	// never reads it.
	SDK any
}

// Info is what the chain may know of a tool beyond its name.
type Info struct {
	// Annotations are the tool's hints, as a policy reads them too; its
	// Known says the adapter found the tool's definition, and the other
	// fields of Info are meaningful only then. A tool that is ReadOnly or
	// Idempotent is safe to call again.
	authz.Annotations
	// Paging names a parameter of the tool's input schema that bounds an
	// answer (limit, page, cursor, offset, max…), "" when it has none:
	// what a model can ask for less with.
	Paging string
	// Output says the tool declares an output schema: its successful
	// result must carry structured content that conforms to it.
	Output bool
}

// Lookup finds a tool's definition when the request did not carry it; the
// chain calls it only when it needs the annotations (a failed call that
// might be retried), so the common successful call never pays for it.
type Lookup interface {
	Tool(ctx context.Context, name string) Info
}

// Result is a handler's answer as the chain sees it. An adapter implements
// it over the SDK's result type with a pointer-shaped value, so converting
// costs no allocation.
type Result interface {
	// Status says what kind of answer the result is.
	Status() Status
	// Check reports why the SDK could not send the result (a NaN in
	// structured content, a value encoding/json rejects); nil when it can.
	Check() error
	// Text returns the result's text content, joined, for the log line of
	// an error result the handler built; "" when it has none.
	Text() string
	// MapText returns the result with f applied to the text of every text
	// content, as a copy when anything changed (the handler's value is never
	// modified): how the chain scrubs secrets from an error result the
	// handler built.
	MapText(f func(string) string) Result
}

// Status is the kind of answer a Result is.
type Status uint8

// The kinds of answers.
const (
	// Success is a complete result without isError.
	Success Status = iota
	// ToolError is a result with isError set by the handler itself.
	ToolError
	// InputRequired is a multi round-trip result asking the client for
	// input: not an error, not final.
	InputRequired
)

// Sizer is implemented by results whose size the chain can bound (the
// answer-size cap, wrap.WithResultLimit). An adapter's result that does not
// implement it is never cut.
type Sizer interface {
	// Measure returns the result's size in bytes as it will be sent — its
	// text, its binary data (as encoded) and its structured content (as
	// JSON) — and the error Check would return, so that the chain looks at
	// a result once.
	Measure() (int, error)
	// Cut returns a copy of the result within budget bytes, with note
	// appended as a last text content: text is cut at a rune boundary (an
	// error result's keeps its head and its tail, with a mark between);
	// binary content (an image, audio, a blob) that does not fit is left
	// out whole, never cut; structured content is left out whole (a cut
	// copy would not be valid JSON for its schema). Whether the tool may
	// answer without it (an output schema requires it of a success) is
	// the chain's to decide before.
	Cut(budget int, note string) Result
}

// Editor is implemented by tool results the chain can change beyond their
// texts: how it scrubs an error result's structured content and gives the
// result the call id. Every method returns a copy; the handler's result is
// never modified.
type Editor interface {
	// Structured returns the result's structured content, nil for none.
	Structured() any
	// WithStructured returns the result with structured content v (nil:
	// none).
	WithStructured(v any) Result
	// AppendText returns the result with a text content s added last.
	AppendText(s string) Result
}

// Keeper is implemented by results the chain can keep in its cache
// (wrap.WithCache) and hand out again.
type Keeper interface {
	// Encode returns the result as JSON, for a shared store
	// (Request.Decode reads it back).
	Encode() ([]byte, error)
	// WithMeta returns a copy of the result whose _meta holds v under
	// key (for a resource's contents, each content's _meta); a nil v adds
	// nothing. The copy's _meta is its own: an SDK that writes into the
	// _meta of what it sends (mcp-go does) leaves the original alone.
	WithMeta(key string, v any) Result
}

// Reply is the user's answer to Request.Ask.
type Reply uint8

// The replies.
const (
	// Unsupported: the client cannot be asked (no elicitation capability).
	Unsupported Reply = iota
	// Accepted: the user confirmed.
	Accepted
	// Declined: the user said no.
	Declined
	// Cancelled: the user dismissed the question without answering.
	Cancelled
)
