package wrap

import (
	"context"
	"net/http"
)

// Limiter admits or refuses a call before anything else of the chain runs
// (before binding, timeout, retries and the handler), so a flood of calls
// costs one check each. A refusal is an error that finish turns into a
// result like any other: limit.Limiter answers errs.RateLimited with
// retryAfterSeconds. Admit must be safe for concurrent use and must return
// within a bounded time. The wrap/limit package provides one (importing
// wrap links none of it); any type with this method is one. tool is the
// tool's name (resources are limited as "resources/read", a prompt as
// "prompts/get " + its name: "prompts/get summarize"), session the MCP session
// id (empty for stateless HTTP and stdio), header the HTTP request's
// headers (nil on stdio).
type Limiter interface {
	Admit(ctx context.Context, tool, session string, header http.Header) error
}

// WithLimit puts l in front of every call (see Limiter). Nil, the default,
// means no limit.
func WithLimit(l Limiter) Option {
	return func(c *config) { c.limit = l }
}
