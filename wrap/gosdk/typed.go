package gosdk

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/binding"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/paging"
	"github.com/mcpwrap/mcpwrap/internal/redact"
	"github.com/mcpwrap/mcpwrap/validate"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// AddTool is mcp.AddTool with package validate's arguments: it registers a
// typed tool on s whose input schema is the one validate derives from In
// (the struct and validator tags mcp-go typed tools use) and whose handler
// binds the arguments itself, so the model learns of every bad parameter
// at once, with did-you-mean and paths, and go-sdk's own validation never
// runs. A binding failure goes through the chain like any error (outcome
// "invalid_argument"); h is not called. When Out is a struct validate
// accepts, the output schema is derived from it and every result is
// checked against its tags (a result breaking them is an internal error);
// the output is sent as structuredContent, and as the text content when
// the result has none. The tool gets its own chain in w, with its
// annotations (readOnlyHint, idempotentHint allow retries) and its
// mcpwrap:"secret" fields redacted. On a server w is attached to, the
// middleware serves the tool with that chain; on a server without it, the
// handler runs the chain itself. AddTool panics when In's or Out's tags
// are wrong or h is nil, as mcp.AddTool does: programming errors, found at
// start-up, when the tool is registered. A nil w means wrap.New(). The tool
// is copied; t is not modified.
func AddTool[In, Out any](s *mcp.Server, w *wrap.Wrapper, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts ...validate.Option) {
	if h == nil {
		panic(fmt.Errorf("gosdk: tool %q: nil handler", t.Name))
	}
	in, err := validate.New[In](opts...)
	if err != nil {
		panic(fmt.Errorf("gosdk: tool %q: %w", t.Name, err))
	}
	tt := *t
	tt.InputSchema = in.Schema()
	var out *validate.Binder[Out]
	hasOut := reflect.TypeFor[Out]() != reflect.TypeFor[any]()
	if hasOut && t.OutputSchema == nil {
		if b, err := validate.New[Out](); err == nil {
			out = b
			tt.OutputSchema = b.Schema()
		}
	}
	handler := typedHandler(tt.Name, in, out, hasOut, h)
	var zero In
	tool(s, w, &tt, handler, true, []wrap.Option{wrap.WithSecrets(redact.SecretNames(zero)...)})
}

// typedHandler is the untyped handler of the typed tool name: it binds the
// arguments with in, calls h, and gives a tool with an output type
// (hasOut) its structured content, checked with out when out is not nil.
func typedHandler[In, Out any](name string, in *validate.Binder[In], out *validate.Binder[Out], hasOut bool,
	h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := binding.Bind[In](in, nil, req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		res, o, err := h(ctx, req, args)
		if err != nil {
			return nil, err
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		if !hasOut || res.InputRequests != nil {
			return res, nil
		}
		return structuredResult(name, res, o, out)
	}
}

// structuredResult is res with o, a typed handler's output, as its
// structured content (checked against out's tags when it has them) and,
// when res has none, its text content.
func structuredResult[Out any](name string, res *mcp.CallToolResult, o Out, out *validate.Binder[Out]) (*mcp.CallToolResult, error) {
	var b any // a nil *Binder is no Binder to check against
	if out != nil {
		b = out
	}
	data, err := binding.Result(name, b, o)
	if err != nil {
		return nil, err
	}
	res.StructuredContent = json.RawMessage(data)
	if res.Content == nil {
		res.Content = []mcp.Content{&mcp.TextContent{Text: string(data)}}
	}
	return res, nil
}

// Tool is (*mcp.Server).AddTool with a chain of the tool's own: w's
// options with opts on top, and the tool's annotations (readOnlyHint,
// idempotentHint), known to the chain without asking the server's
// tools/list (as the middleware does for a plain AddTool's tool). On a
// server w is attached to, the middleware serves the tool with this chain
// and the handler does not run it twice; on a server without it, the
// handler runs the chain itself. The handler is safe for concurrent use
// when h is. A nil w means wrap.New().
func Tool(s *mcp.Server, w *wrap.Wrapper, t *mcp.Tool, h mcp.ToolHandler, opts ...wrap.Option) {
	tool(s, w, t, h, false, opts)
}

// tool is Tool; bound says h decodes and checks its arguments itself (a
// typed tool).
func tool(s *mcp.Server, w *wrap.Wrapper, t *mcp.Tool, h mcp.ToolHandler, bound bool, opts []wrap.Option) {
	if w == nil {
		w = wrap.New()
	}
	serve := adapter.Tool(w, t.Name, infoOf(t), bound, opts)
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if ctx.Value(servedKey{}) == w {
			return h(ctx, req)
		}
		return serveTool(ctx, serve, req, toolNext{tool: h})
	})
}

func infoOf(t *mcp.Tool) call.Info {
	info := call.Info{Paging: paging.Param(t.InputSchema), Output: t.OutputSchema != nil}
	info.Known, info.Destructive, info.OpenWorld = true, true, true // MCP's defaults
	if a := t.Annotations; a != nil {
		info.ReadOnly, info.Idempotent = a.ReadOnlyHint, a.IdempotentHint
		if a.DestructiveHint != nil {
			info.Destructive = *a.DestructiveHint
		}
		if a.OpenWorldHint != nil {
			info.OpenWorld = *a.OpenWorldHint
		}
	}
	return info
}
