package wrap

import (
	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/wrap/call"
)

// WithBoundArguments says a tool's handler decodes and checks its
// arguments itself and names what it expects when they are not an object
// (mcpwrap's typed tools, mcpgo.Typed and gosdk.AddTool, set it on their
// tool's chain): the chain then leaves such arguments to the handler's own
// answer, which lists the parameters. It is meant for one tool's options
// (mcpgo.Tool, gosdk.Tool); on a whole Wrapper it turns the check off for
// every tool.
func WithBoundArguments() Option {
	return func(c *config) { c.bound = true }
}

// object is the layer that refuses a tools/call whose arguments are not a
// JSON object (a string, a number, a boolean, an array), as MCP requires,
// before any other layer or the handler runs: an invalid_argument answer
// naming what was sent. Null or absent arguments are an empty object and
// pass. Both SDKs hand such arguments to a raw tool's handler as they are.
func object(req *call.Request) *errs.Error {
	got := req.NotObject()
	if got == "" {
		return nil
	}
	msg := call.ArgumentsNotObject(got)
	return errs.New(errs.InvalidArgument, msg,
		errs.Violations(errs.Violation{Rule: "type", Expected: "a JSON object", Message: msg}))
}
