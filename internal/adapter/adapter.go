// Package adapter is what the SDK adapters (wrap/mcpgo, wrap/gosdk) need of
// package wrap and a server's code must not see: the chain of a Wrapper,
// the chain of one tool, the Wrapper's observer, and the write deadline of
// an HTTP request. Package wrap sets the functions from its init
// (wrap/internal.go); they are nil until package wrap is linked, which it
// always is when an adapter is.
package adapter

import (
	"context"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/policy"
)

// Serve runs one chain for one request and always returns an Answer: h's
// panics and errors are in it. It is safe for concurrent use.
type Serve func(ctx context.Context, req *call.Request, h call.Handler) call.Answer

// The accessors of a *wrap.Wrapper. w is always a *wrap.Wrapper (an
// interface here because this package cannot import wrap, which imports
// it); opts is always a []wrap.Option.
var (
	// Chain returns the chain of w for every request: a tool with a chain
	// of its own (Tool) is served by that chain.
	Chain func(w any) Serve
	// Tool returns the chain of one tool, whose options are w's with opts
	// on top and whose definition is info, and registers it under name so
	// that Chain(w) uses it for that tool. bound says the tool's handler
	// decodes and checks its arguments itself (a typed tool): the chain
	// then leaves arguments that are not a JSON object to the handler's
	// own answer, which names the parameters.
	Tool func(w any, name string, info call.Info, bound bool, opts any) Serve
	// Own reports whether the tool name has a chain of its own in w (Tool).
	Own func(w any, name string) bool
	// Observer returns the observer w's chain reports to (with the secret
	// names it knows), nil when it neither logs nor observes: what an
	// adapter connects the SDK's own hooks and tracing to.
	Observer func(w any) *obs.Observer
	// Policy returns w's authorization policy (wrap.WithAuthorization),
	// nil without one: what an adapter filters the lists it sends by.
	Policy func(w any) *policy.Engine
	// Keeps reports whether w has a call cache (wrap.WithCache): whether
	// the adapter must watch the lists for Changed.
	Keeps func(w any) bool
	// Changed tells w's call cache that the server's list of kind
	// (call.Tool, call.Resource) changed, so that the answers kept for it
	// are dropped.
	Changed func(w any, kind call.Kind)
)
