package wrap

import (
	"context"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// warnUndeclared warns, once, that what req names is denied to every
// caller (no policy declares it, or read-only mode hides it), when the
// server registered it. A name the server does not have is no forgotten
// declaration: go-sdk hands the middleware every tools/call, prompts/get and
// resources/read, mcp-go every URI a resource template matches, and a client
// must not fill the log and the policy's memory with names of its choosing.
// A URI a template serves is warned of as its template, so that a client
// reading many such URIs makes one warning.
func warnUndeclared(ctx context.Context, req *call.Request, cfg *config, r authz.Request) {
	if req.Kind == call.Tool {
		if !r.Annotations.Known && !toolInfo(ctx, cfg, req).Known {
			return
		}
		cfg.policy.Warn(ctx, cfg.observer, r)
		return
	}
	if req.Registered == nil {
		return
	}
	name, ok := req.Registered(ctx, req)
	if !ok {
		return
	}
	r.Name = name
	cfg.policy.Warn(ctx, cfg.observer, r)
}
