package mcpgo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/validate"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/call"
)

// TypedHandler is a tool handler that receives its arguments decoded into a
// T and validated; it never sees invalid input.
type TypedHandler[T any] func(ctx context.Context, req mcp.CallToolRequest, args T) (*mcp.CallToolResult, error)

// Typed registers a typed handler in one line:
//
//	s.AddTools(mcpgo.MustTyped(w, mcp.NewTool("forecast", mcp.WithDescription("…")), forecast))
//
// It builds the validate.Binder of T once (an error means T's tags are
// wrong), replaces the tool's input schema with the one derived from T, and
// wraps a handler that binds before calling h. A binding failure goes
// through the same chain as any other error: the model gets the
// invalid-argument result naming every bad parameter, the log line has
// outcome "invalid_argument", and h is not called. A nil w means New().
// The returned handler is safe for concurrent use.
func Typed[T any](w *wrap.Wrapper, tool mcp.Tool, h TypedHandler[T], opts ...validate.Option) (server.ServerTool, error) {
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
	WithSchema(b)(&tool)
	return Tool(w, tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := b.Bind(&call.Request{Args: req.Params.Arguments, Raw: req.Params.RawArguments})
		if err != nil {
			return nil, err
		}
		return h(ctx, req, args)
	}, wrap.WithSecrets(secretNamesOf[T]()...), wrap.WithBoundArguments()), nil
}

// secretNamesOf returns the parameters of T tagged mcpwrap:"secret": their
// values are redacted in log lines and spans and scrubbed from error
// results, whatever their names.
func secretNamesOf[T any]() []string {
	var zero T
	return obs.SecretNames(zero)
}

// MustTyped is Typed for start-up code: it panics on Typed's error, which
// is a programming error in T's tags.
func MustTyped[T any](w *wrap.Wrapper, tool mcp.Tool, h TypedHandler[T], opts ...validate.Option) server.ServerTool {
	st, err := Typed(w, tool, h, opts...)
	if err != nil {
		panic(err)
	}
	return st
}

// TypedOutHandler is a typed handler that returns a typed structured result.
type TypedOutHandler[In, Out any] func(ctx context.Context, req mcp.CallToolRequest, args In) (Out, error)

// TypedOut is Typed for a tool with a structured result: the tool's output
// schema is derived from Out, and every result is checked against Out's
// validate tags before it is sent. A result that breaks them is a bug in
// the tool, not in the call: the model gets the generic internal error,
// the operator's log line says which field was wrong. A valid result is
// sent as structuredContent with its JSON as the text content.
func TypedOut[In, Out any](w *wrap.Wrapper, tool mcp.Tool, h TypedOutHandler[In, Out], opts ...validate.Option) (server.ServerTool, error) {
	if h == nil {
		return server.ServerTool{}, fmt.Errorf("mcpgo: tool %q: nil handler", tool.Name)
	}
	out, err := validate.New[Out]()
	if err != nil {
		return server.ServerTool{}, fmt.Errorf("mcpgo: tool %q: result type: %w", tool.Name, err)
	}
	tool.OutputSchema = mcp.ToolOutputSchema{}
	tool.RawOutputSchema = out.Schema()
	return Typed(w, tool, func(ctx context.Context, req mcp.CallToolRequest, args In) (*mcp.CallToolResult, error) {
		res, err := h(ctx, req, args)
		if err != nil {
			return nil, err
		}
		if err := out.Check(res); err != nil {
			var e *errs.Error
			msg := err.Error()
			if errors.As(err, &e) {
				msg = e.Message()
			}
			return nil, errs.Wrap(errs.Internal, fmt.Errorf("tool %q returned a result that breaks its own schema: %s", tool.Name, msg), "")
		}
		text, err := json.Marshal(res)
		if err != nil {
			return nil, errs.Wrap(errs.Internal, fmt.Errorf("encode result of tool %q: %w", tool.Name, err), "")
		}
		return mcp.NewToolResultStructured(res, string(text)), nil
	}, opts...)
}

// WithSchema sets a tool's input schema to the one a validate.Binder
// derived from its struct, for mcp.NewTool:
//
//	mcp.NewTool("forecast", mcpgo.WithSchema(forecastArgs))
func WithSchema(b interface{ Schema() json.RawMessage }) mcp.ToolOption {
	return func(t *mcp.Tool) {
		t.InputSchema = mcp.ToolInputSchema{}
		t.RawInputSchema = b.Schema()
	}
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
	c := w.Chain(tool.Name, infoOf(tool), opts...)
	return server.ServerTool{
		Tool: tool,
		Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if ctx.Value(servedKey{}) == w {
				return h(ctx, req)
			}
			return serveTool(ctx, c.Serve, req, h)
		},
	}
}
