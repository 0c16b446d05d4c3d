package wrap

import (
	"context"

	"github.com/mcpwrap/mcpwrap/internal/call"
)

// Limiter admits or refuses a call before anything else of the chain runs
// (before binding, timeout, retries and the handler), so a flood of calls
// costs one check each. A refusal is an error that finish turns into a
// result like any other: limit.Limiter answers errs.RateLimited with
// retryAfterSeconds. Admit must be safe for concurrent use and must return
// within a bounded time. The wrap/limit package provides it (the request
// is the chain's own type, which only mcpwrap's packages name); importing
// wrap links none.
type Limiter interface {
	Admit(ctx context.Context, req *call.Request) error
}

// WithLimit puts l in front of every call (see Limiter). Nil, the default,
// means no limit.
func WithLimit(l Limiter) Option {
	return func(c *config) { c.limit = l }
}
