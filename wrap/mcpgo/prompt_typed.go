package mcpgo

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/binding"
	"github.com/mcpwrap/mcpwrap/validate"
)

// TypedPromptHandler handles a prompts/get whose arguments were bound to a
// T and validated.
type TypedPromptHandler[T any] func(ctx context.Context, req mcp.GetPromptRequest, args T) (*mcp.GetPromptResult, error)

// TypedPrompt returns prompt with its arguments advertised from T's fields
// (json names, description tags, "required" rules) and a handler that
// binds and validates them before calling h. Arguments that break T's rules are an
// errs.InvalidArgument error naming each one, which a server with mcpwrap attached
// sends as JSON-RPC -32602; h is not called. It fails when T is not a
// struct validate accepts. The handler is safe for concurrent use if h is.
func TypedPrompt[T any](prompt mcp.Prompt, h TypedPromptHandler[T], opts ...validate.Option) (server.ServerPrompt, error) {
	b, err := validate.New[T](opts...)
	if err != nil {
		return server.ServerPrompt{}, err
	}
	prompt.Arguments = nil
	for _, a := range binding.PromptArguments(b) {
		prompt.Arguments = append(prompt.Arguments, mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
	}
	return server.ServerPrompt{
		Prompt: prompt,
		Handler: func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			args, err := b.Bind(req.Params.Arguments)
			if err != nil {
				return nil, err
			}
			return h(ctx, req, args)
		},
	}, nil
}

// MustTypedPrompt is TypedPrompt that panics on error, for registration at
// start-up.
func MustTypedPrompt[T any](prompt mcp.Prompt, h TypedPromptHandler[T], opts ...validate.Option) server.ServerPrompt {
	p, err := TypedPrompt(prompt, h, opts...)
	if err != nil {
		panic(err)
	}
	return p
}
