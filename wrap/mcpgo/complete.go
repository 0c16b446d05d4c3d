package mcpgo

import (
	"context"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/policy"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// authorizeCompletion makes completion/complete follow e: the server's
// completion providers run only for a prompt the caller may get, or a
// resource template (or resource) it may read; for any other the answer is
// an empty completion, what mcp-go's default providers answer, and what a
// provider answers for a name it does not know. No tool, resource or
// prompt middleware runs on completion/complete, so the providers
// themselves are wrapped.
//
// mcp-go sets them with options (WithPromptCompletionProvider,
// WithResourceCompletionProvider) and offers no way to read them, so this
// reads its unexported fields promptCompletionProvider and
// resourceCompletionProvider; TestCompletionTrickFields fails when an
// mcp-go upgrade renames or retypes them, and completion then runs as it
// did, unfiltered (ok is false).
func authorizeCompletion(s *server.MCPServer, e *policy.Engine) (ok bool) {
	f := completionFields()
	if !f.ok {
		return false
	}
	v := reflect.ValueOf(s).Elem()
	if p, _ := readField(v.Field(f.prompt)).(server.PromptCompletionProvider); p != nil {
		server.WithPromptCompletionProvider(promptCompletion{next: p, e: e})(s)
	}
	if r, _ := readField(v.Field(f.resource)).(server.ResourceCompletionProvider); r != nil {
		server.WithResourceCompletionProvider(resourceCompletion{next: r, e: e})(s)
	}
	return true
}

// completionFields are the indices in server.MCPServer of the two
// providers, found once.
var completionFields = sync.OnceValue(func() (f struct {
	prompt, resource int
	ok               bool
}) {
	var okp, okr bool
	f.prompt, okp = serverField("promptCompletionProvider", typeIs[server.PromptCompletionProvider]())
	f.resource, okr = serverField("resourceCompletionProvider", typeIs[server.ResourceCompletionProvider]())
	f.ok = okp && okr
	return f
})

// mayComplete reports whether the caller may have completions for a
// prompt (method prompts/get) or a resource template (resources/read) of
// that name: exactly when it may get or read it. A caller who may list it
// but not use it (StepUp) gets none either: the values are what it would
// send, which it may not.
func mayComplete(ctx context.Context, e *policy.Engine, method, name string) bool {
	return e.Decide(ctx, identify(ctx, nil), authz.Request{Method: method, Name: name}).Verdict == policy.Allowed
}

type promptCompletion struct {
	next server.PromptCompletionProvider
	e    *policy.Engine
}

func (p promptCompletion) CompletePromptArgument(ctx context.Context, name string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	if !mayComplete(ctx, p.e, policy.PromptsGet, name) {
		return &mcp.Completion{Values: []string{}}, nil
	}
	return p.next.CompletePromptArgument(ctx, name, arg, cc)
}

type resourceCompletion struct {
	next server.ResourceCompletionProvider
	e    *policy.Engine
}

func (r resourceCompletion) CompleteResourceArgument(ctx context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	if !mayComplete(ctx, r.e, policy.ResourcesRead, uri) {
		return &mcp.Completion{Values: []string{}}, nil
	}
	return r.next.CompleteResourceArgument(ctx, uri, arg, cc)
}

// guardLateCompletion covers a completion provider the server sets after
// Attach (server.WithPromptCompletionProvider(p)(s), as servers that set up
// completion in a function of their own do), which replaces the wrapped
// one: before every completion/complete it renames a prompt or template
// the caller may not use to hiddenURI, a name no server has, so such a
// provider answers it as the unknown name it is to that caller and never
// sees the hidden one; the first time it finds a provider that is not the
// wrapped one it says so in a WARN. The wrapped providers answer
// hiddenURI with nothing without running the server's code.
func guardLateCompletion(s *server.MCPServer, h *server.Hooks, e *policy.Engine, o *obs.Observer) {
	var warned atomic.Bool
	h.AddBeforeComplete(func(ctx context.Context, _ any, req *mcp.CompleteRequest) {
		if req == nil || !hideRef(ctx, e, req) {
			return
		}
		if o != nil && !warned.Load() && !wrappedCompletion(s) && !warned.Swap(true) {
			o.Log(ctx, slog.LevelWarn, "authorization: a completion provider was set after mcpgo.Attach; "+
				"it is not told the prompts and templates a caller may not use (they reach it as "+hiddenURI+
				"), but its code runs for them: set it before Attach")
		}
	})
}

// hideRef makes the prompt or resource req completes hiddenURI when the
// caller may not use it; it is false when req refers to neither.
func hideRef(ctx context.Context, e *policy.Engine, req *mcp.CompleteRequest) bool {
	switch ref := req.Params.Ref.(type) {
	case mcp.PromptReference:
		if !mayComplete(ctx, e, policy.PromptsGet, ref.Name) {
			ref.Name = hiddenURI
			req.Params.Ref = ref
		}
	case mcp.ResourceReference:
		if !mayComplete(ctx, e, policy.ResourcesRead, ref.URI) {
			ref.URI = hiddenURI
			req.Params.Ref = ref
		}
	default:
		return false
	}
	return true
}

// wrappedCompletion reports whether both of s's completion providers are
// the ones authorizeCompletion installed (true when the fields cannot be
// read: nothing to warn of that the test of the trick does not catch).
func wrappedCompletion(s *server.MCPServer) bool {
	f := completionFields()
	if !f.ok {
		return true
	}
	v := reflect.ValueOf(s).Elem()
	_, p := readField(v.Field(f.prompt)).(promptCompletion)
	_, r := readField(v.Field(f.resource)).(resourceCompletion)
	return p && r
}
