package wrap

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/observe"
)

// errTimedOut is the context cause that tells our own timeout apart from the
// client's cancellation or a deadline set further out.
// It wraps context.DeadlineExceeded so that errs classifies what a handler
// returns on it (e.g. a *url.Error carrying the cause) as a Timeout.
var errTimedOut = fmt.Errorf("mcpwrap: per-call timeout: %w", context.DeadlineExceeded)

// runWithTimeout runs next in its own goroutine so that the call answers on
// time even when the handler ignores its context. The handler's context is
// cancelled when the timeout fires; a result that arrives later is logged
// and dropped.
func runWithTimeout(ctx context.Context, req *mcp.CallToolRequest, next server.ToolHandlerFunc, d time.Duration, cfg *config, rec *record) outcome {
	ctx, cancel := context.WithTimeoutCause(ctx, d, errTimedOut)
	defer cancel()
	done := make(chan outcome, 1)
	// The handler may outlive the answer, so it gets its own record on the
	// heap; the caller's stays on the stack (the no-timeout path allocates
	// nothing because of that).
	inner := &record{tool: rec.tool, callID: rec.id(), obs: rec.obs, shared: new(atomic.Int32)}
	defer func() { rec.attempts = inner.shared.Load() }()
	// A copy, so that only this path moves the request to the heap.
	r := *req
	go func() { done <- run(ctx, &r, next, cfg, inner) }()
	select {
	case o := <-done:
		if o.err != nil && o.panic == nil && context.Cause(ctx) == errTimedOut {
			o.err = timeoutError(req.Params.Name, d, o.err)
		}
		return o
	case <-ctx.Done():
		cause := context.Cause(ctx)
		go drainLate(rec.obs, time.Now(), done, cfg.abandoned(req.Params.Name))
		if cause == errTimedOut {
			return outcome{err: timeoutError(req.Params.Name, d, cause)}
		}
		return outcome{err: cause}
	}
}

func timeoutError(tool string, d time.Duration, cause error) error {
	return errs.Wrap(errs.Timeout, cause,
		"tool "+strconv.Quote(tool)+" timed out after "+d.String()+"; the operation may still complete upstream")
}

// drainLate waits for an abandoned handler so its goroutine can end, and
// tells the operator how late it was.
func drainLate(obs *observe.Recording, abandoned time.Time, done <-chan outcome, returned func()) {
	o := <-done
	returned()
	switch {
	case o.panic != nil:
		obs.Late(time.Since(abandoned), o.panic, o.panic.Stack)
	default:
		obs.Late(time.Since(abandoned), o.err, nil)
	}
}
