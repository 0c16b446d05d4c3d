package wrap

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
)

// keyPromptsGet prefixes the name the chain's layers know a prompts/get by:
// "prompts/get {prompt}" (mcp-go answers unknown prompts itself, so the
// names are bounded by the server's prompts).
const keyPromptsGet = "prompts/get "

// Prompts returns the mcp-go server option that protects every prompt
// handler of the server with the Wrapper's chain: PromptMiddleware and the
// error hook that sends a failure as its own JSON-RPC error. Give it after
// any server.WithHooks, which would replace the hook.
func (w *Wrapper) Prompts() server.ServerOption {
	return w.withRPCErrors(mcp.MethodPromptsGet, server.WithPromptHandlerMiddleware(w.PromptMiddleware()))
}

// PromptMiddleware returns the chain for prompts/get as an mcp-go prompt
// middleware. A handler that fails, returns a nil result, panics or
// outlives WithTimeout is answered with a JSON-RPC error: -32602 for
// errs.InvalidArgument and errs.NotFound (naming the bad arguments), and
// -32603 with a masked message and the call id for anything internal.
// Arguments named like secrets are redacted in the log and scrubbed from
// messages. The handlers it returns are safe for concurrent use.
func (w *Wrapper) PromptMiddleware() server.PromptHandlerMiddleware {
	return func(next server.PromptHandlerFunc) server.PromptHandlerFunc {
		return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return w.prompt(ctx, req, next, &w.cfg)
		}
	}
}

func (w *Wrapper) prompt(ctx context.Context, req mcp.GetPromptRequest, next server.PromptHandlerFunc, cfg *config) (*mcp.GetPromptResult, error) {
	var rec record
	rec.tool = keyPromptsGet + req.Params.Name
	if cfg.observer != nil {
		ctx, rec.obs = cfg.observer.StartPrompt(ctx, req, rec.id())
	}
	r := request{key: rec.tool, answer: errs.Request{Prompt: req.Params.Name}}
	if len(req.Params.Arguments) > 0 {
		r.args = make(map[string]any, len(req.Params.Arguments))
		for k, v := range req.Params.Arguments {
			r.args[k] = v
		}
	}
	return serveRequest(ctx, cfg, &rec, &r, func(ctx context.Context) (*mcp.GetPromptResult, bool, error) {
		res, err := next(ctx, req)
		return res, res != nil, err
	})
}
