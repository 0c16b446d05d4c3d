package wrap

import (
	"context"
	"errors"
	"reflect"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/observe"
)

// withRPCErrors returns opt followed by the registration of the Wrapper's
// error hook for method on the server's hooks (created if the server has
// none).
func (w *Wrapper) withRPCErrors(method mcp.MCPMethod, opt server.ServerOption) server.ServerOption {
	return func(s *server.MCPServer) {
		opt(s)
		h := s.GetHooks()
		if h == nil {
			h = &server.Hooks{}
			server.WithHooks(h)(s)
		}
		h.AddOnError(func(ctx context.Context, _ any, m mcp.MCPMethod, msg any, err error) {
			if m == method {
				w.onError(ctx, msg, err)
			}
		})
	}
}

// onError sees every resources/read and prompts/get mcp-go answers with
// an error: the chain's own failures, whose code it sets (sendRPCError),
// and the reads mcp-go refuses before any middleware runs (a URI no
// handler matches), which get their log line, span and duration point
// here.
func (w *Wrapper) onError(ctx context.Context, msg any, err error) {
	var rpc *errs.RPCError
	if errors.As(err, &rpc) {
		sendRPCError(err, rpc)
		return
	}
	// An unknown prompt is not recorded: its name, chosen by the client,
	// would become a metric attribute.
	req, ok := msg.(*mcp.ReadResourceRequest)
	if w.cfg.observer == nil || !ok || req == nil || !errors.Is(err, server.ErrResourceNotFound) {
		return
	}
	var rec record
	_, rec.obs = w.cfg.observer.StartResource(ctx, *req, rec.id())
	rec.fail(observe.CodeOutcome(errs.NotFound), errs.Wrap(errs.NotFound, err, ""))
	rec.rpcCode = mcp.INTERNAL_ERROR
	if code := requestErrorField(err, "code"); code.Kind() == reflect.Int {
		rec.rpcCode = int(code.Int())
	}
	rec.log(ctx)
}

// sendRPCError gives a resources/read or prompts/get failure answered by
// the chain its own JSON-RPC code and data. mcp-go v1.2.1 sends every
// error a resource or prompt handler returns as -32603 with the error's
// text, and offers no way to choose the code; its error hooks, though, get
// the very error value it then encodes, after they return. So the hook sets
// that value's code and data from the *errs.RPCError inside it. The value's
// layout is checked field by field first: on any other mcp-go it changes
// nothing, and the client still reads -32603 with the same safe message.
func sendRPCError(err error, rpc *errs.RPCError) {
	code, data := requestErrorField(err, "code"), requestErrorField(err, "data")
	if code.Kind() != reflect.Int || data.Kind() != reflect.Interface || data.NumMethod() != 0 {
		return
	}
	writable(code).SetInt(int64(rpc.Code))
	writable(data).Set(reflect.ValueOf(rpc.Data))
}

// requestErrorField returns the named field of mcp-go's *requestError
// (addressable), or the zero Value when err is not one.
func requestErrorField(err error, name string) reflect.Value {
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	st := v.Elem()
	if st.Type().Name() != "requestError" || st.Type().PkgPath() != "github.com/mark3labs/mcp-go/server" {
		return reflect.Value{}
	}
	return st.FieldByName(name)
}

// writable returns an addressable field of an addressable struct as a
// settable value.
func writable(f reflect.Value) reflect.Value {
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}
