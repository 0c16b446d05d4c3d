package mcpgo

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/validate"
)

// TypedPromptHandler handles a prompts/get whose arguments were bound to a
// T and validated.
type TypedPromptHandler[T any] func(ctx context.Context, req mcp.GetPromptRequest, args T) (*mcp.GetPromptResult, error)

// TypedPrompt returns prompt with its arguments advertised from T's fields
// (json names, description tags, "required" rules; see
// validate.Binder.PromptArguments) and a handler that binds and validates them
// before calling h. Arguments that break T's rules are an
// errs.InvalidArgument error naming each one, which a server with mcpwrap
// attached sends as JSON-RPC -32602; h is not called. TypedPrompt panics
// when T is not a struct validate accepts or its tags are wrong, as Typed
// does: a programming error, found at start-up. The handler is safe for
// concurrent use if h is.
func TypedPrompt[T any](prompt mcp.Prompt, h TypedPromptHandler[T], opts ...validate.Option) server.ServerPrompt {
	b, err := validate.New[T](opts...)
	if err != nil {
		panic(fmt.Errorf("mcpgo: prompt %q: %w", prompt.Name, err))
	}
	prompt.Arguments = nil
	for _, a := range b.PromptArguments() {
		prompt.Arguments = append(prompt.Arguments, mcp.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
	}
	return server.ServerPrompt{
		Prompt: prompt,
		Handler: func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			args, err := b.BindPrompt(req.Params.Arguments)
			if err != nil {
				return nil, err
			}
			return h(ctx, req, args)
		},
	}
}
