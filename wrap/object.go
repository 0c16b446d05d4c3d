package wrap

import (
	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
)

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
