package gosdk

import (
	"context"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/policy"
	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// serveComplete makes completion/complete follow e: the server's
// CompletionHandler runs only for a prompt the caller may get, or a
// resource template (or resource) it may read. For any other the answer is
// an empty completion ({"completion":{"values":[]}}), what a completion
// handler answers for a name it does not know, since go-sdk itself does
// not look the name up; the handler does not run. A caller who may list
// the prompt but not get it (StepUp) gets no values either: they are what
// it would send, which it may not. A request go-sdk refuses before the
// handler (no ref, no argument name) and a server without a
// CompletionHandler are left to go-sdk, whose answer then holds for every
// name alike.
func serveComplete(ctx context.Context, e *policy.Engine, handled bool, method string, r *mcp.CompleteRequest, next mcp.MethodHandler) (mcp.Result, error) {
	if !handled || r.Params == nil || r.Params.Ref == nil || r.Params.Argument.Name == "" {
		return next(ctx, method, r)
	}
	if e.Decide(ctx, callerOf(ctx, r.Extra), completedRef(r.Params.Ref)).Verdict == policy.Allowed {
		return next(ctx, method, r)
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
}

// completedRef is the use of the prompt or resource ref a completion is
// for.
func completedRef(ref *mcp.CompleteReference) authz.Request {
	if ref.Type == "ref/resource" {
		return authz.Request{Method: policy.ResourcesRead, Name: ref.URI}
	}
	return authz.Request{Method: policy.PromptsGet, Name: ref.Name}
}

// handlers says which of go-sdk's optional handlers a server has: without
// one, go-sdk answers its method alike for every name, and no code of the
// server's runs, so the middleware leaves the request to go-sdk.
type handlers struct{ complete, subscribe bool }

// handlersOf reads s's CompletionHandler and SubscribeHandler. go-sdk keeps
// its options unexported, so this reads the fields opts.CompletionHandler
// and opts.SubscribeHandler; TestGoSDKCompletionWithoutHandlerIsGoSDKs and
// TestGoSDKSubscribeFollowsThePolicy fail when an upgrade renames or
// retypes them. A field not found counts as a handler present: a hidden
// name is then answered by the middleware, never by the server's code.
func handlersOf(s *mcp.Server) handlers {
	f := reflect.ValueOf(s).Elem().FieldByName("opts")
	has := func(name string) bool {
		if !f.IsValid() || f.Kind() != reflect.Struct {
			return true
		}
		h := f.FieldByName(name)
		return !h.IsValid() || h.Kind() != reflect.Func || !h.IsNil()
	}
	return handlers{complete: has("CompletionHandler"), subscribe: has("SubscribeHandler")}
}
