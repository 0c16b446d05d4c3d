package mcpgo

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/binding"
	"github.com/mcpwrap/mcpwrap/internal/redact"
	"github.com/mcpwrap/mcpwrap/validate"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// TypedHandler is a tool handler that receives its arguments decoded into
// an In and validated; it never sees invalid input. Out is what it returns:
// *mcp.CallToolResult for an ordinary result, any other type for a
// structured result (see Typed).
type TypedHandler[In, Out any] func(ctx context.Context, req mcp.CallToolRequest, args In) (Out, error)

// Typed registers a typed handler in one line:
//
//	s.AddTools(mcpgo.Typed(w, mcp.NewTool("forecast", mcp.WithDescription("…")), forecast))
//
// It builds the validate.Binder of In once, replaces the tool's input
// schema with the one derived from In, and wraps a handler that binds
// before calling h. A binding failure goes through the same chain as any
// other error: the model gets the invalid-argument result naming every bad
// parameter, the log line has outcome "invalid_argument", and h is not
// called. Parameters of In tagged mcpwrap:"secret" are redacted in log
// lines and spans and scrubbed from error results, whatever their names.
//
// When Out is not *mcp.CallToolResult, the tool has a structured result:
// its output schema is derived from Out, and every result is checked
// against Out's validate tags before it is sent. A result that breaks them
// is a bug in the tool, not in the call: the model gets the generic
// internal error, the operator's log line says which field was wrong. A
// valid result is sent as structuredContent with its JSON as the text
// content.
//
// Typed panics when In or Out is not a struct validate accepts, or its
// tags are wrong, or h is nil: programming errors, found at start-up, when
// the tool is registered. A nil w means wrap.New(). The returned handler is
// safe for concurrent use.
func Typed[In, Out any](w *wrap.Wrapper, tool mcp.Tool, h TypedHandler[In, Out], opts ...validate.Option) server.ServerTool {
	st, err := typed(w, tool, h, opts...)
	if err != nil {
		panic(err)
	}
	return st
}

func typed[In, Out any](w *wrap.Wrapper, tool mcp.Tool, h TypedHandler[In, Out], opts ...validate.Option) (server.ServerTool, error) {
	if h == nil {
		return server.ServerTool{}, fmt.Errorf("mcpgo: tool %q: nil handler", tool.Name)
	}
	if plain, ok := any(h).(TypedHandler[In, *mcp.CallToolResult]); ok {
		return typedTool(w, tool, plain, opts...)
	}
	out, err := validate.New[Out]()
	if err != nil {
		return server.ServerTool{}, fmt.Errorf("mcpgo: tool %q: result type: %w", tool.Name, err)
	}
	tool.OutputSchema = mcp.ToolOutputSchema{}
	tool.RawOutputSchema = out.Schema()
	return typedTool(w, tool, func(ctx context.Context, req mcp.CallToolRequest, args In) (*mcp.CallToolResult, error) {
		res, err := h(ctx, req, args)
		if err != nil {
			return nil, err
		}
		return structured(tool.Name, out, res)
	}, opts...)
}

// structured is the result of the tool name whose handler returned res:
// res as structured content and as text, once out checked it against the
// tool's own schema.
func structured[Out any](name string, out *validate.Binder[Out], res Out) (*mcp.CallToolResult, error) {
	text, err := binding.Result(name, out, res)
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultStructured(res, string(text)), nil
}

// typedTool is Typed for a handler with an ordinary result.
func typedTool[T any](w *wrap.Wrapper, tool mcp.Tool, h TypedHandler[T, *mcp.CallToolResult], opts ...validate.Option) (server.ServerTool, error) {
	if h == nil {
		return server.ServerTool{}, fmt.Errorf("mcpgo: tool %q: nil handler", tool.Name)
	}
	b, err := validate.New[T](opts...)
	if err != nil {
		return server.ServerTool{}, fmt.Errorf("mcpgo: tool %q: %w", tool.Name, err)
	}
	if w == nil {
		w = wrap.New()
	}
	tool.InputSchema = mcp.ToolInputSchema{}
	tool.RawInputSchema = b.Schema()
	return tool1(w, tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := binding.Bind[T](b, req.Params.Arguments, req.Params.RawArguments)
		if err != nil {
			return nil, err
		}
		return h(ctx, req, args)
	}, true, []wrap.Option{wrap.WithSecrets(secretNamesOf[T]()...)}), nil
}

// secretNamesOf returns the parameters of T tagged mcpwrap:"secret": their
// values are redacted in log lines and spans and scrubbed from error
// results, whatever their names.
func secretNamesOf[T any]() []string {
	var zero T
	return redact.SecretNames(zero)
}

// Tool wraps one tool's handler with w's chain, with opts on top of w's
// options for this tool only, for server.AddTools. On a server w is
// attached to, the middleware serves the tool with this chain and the
// handler does not run it twice; on a server without it, the handler runs
// the chain itself. The tool must be built by the Wrapper attached to its
// server (a tool of another Wrapper would be served by both chains). The
// returned handler is safe for concurrent use.
func Tool(w *wrap.Wrapper, tool mcp.Tool, h server.ToolHandlerFunc, opts ...wrap.Option) server.ServerTool {
	if w == nil {
		w = wrap.New()
	}
	return tool1(w, tool, h, false, opts)
}

// tool1 is Tool; bound says h decodes and checks its arguments itself (a
// typed tool).
func tool1(w *wrap.Wrapper, tool mcp.Tool, h server.ToolHandlerFunc, bound bool, opts []wrap.Option) server.ServerTool {
	serve := adapter.Tool(w, tool.Name, infoOf(tool), bound, opts)
	return server.ServerTool{
		Tool: tool,
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if ctx.Value(servedKey{}) == w {
				return h(ctx, req)
			}
			return serveTool(ctx, serve, req, h)
		},
	}
}
