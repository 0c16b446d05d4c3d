package wrap

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
)

// admit is the admission layer: checks that may refuse a call before any
// of its work starts, before the timeout and before a typed tool binds its
// arguments. A refusal is answered by finish like any failure (an isError
// result, one log line) without running the handler. Today it refuses
// calls while the process stops after a fatal error; limits on concurrent
// calls or on the call rate belong here too, in the order they should
// refuse.
//
// A layer that holds something for the call (a bulkhead's slot) returns
// release: the chain calls it once the handler has really returned — after
// the answer, for a handler abandoned by its timeout (see job.run) — and
// never for a refused call.
func admit(_ context.Context, cfg *config, _ *record, _ *mcp.CallToolRequest) (release func(), err *errs.Error) {
	if cfg.fatal != nil && cfg.fatal.stopping.Load() {
		return nil, errStopping
	}
	return nil, nil
}
