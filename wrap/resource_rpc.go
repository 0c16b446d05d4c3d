package wrap

import (
	"context"
	"errors"
	"reflect"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
)

// withRPCErrors returns opt followed by the registration of sendRPCError
// on the server's hooks (created if the server has none).
func withRPCErrors(opt server.ServerOption) server.ServerOption {
	return func(s *server.MCPServer) {
		opt(s)
		h := s.GetHooks()
		if h == nil {
			h = &server.Hooks{}
			server.WithHooks(h)(s)
		}
		h.AddOnError(sendRPCError)
	}
}

// sendRPCError gives a resources/read or prompts/get failure answered by
// the chain its own JSON-RPC code and data. mcp-go v1.2.1 sends every
// error a resource or prompt handler returns as -32603 with the error's
// text, and offers no way to choose the code; its error hooks, though, get
// the very error value it then encodes, after they return. So the hook sets
// that value's code and data from the *errs.RPCError inside it. The value's
// layout is checked field by field first: on any other mcp-go it changes
// nothing, and the client still reads -32603 with the same safe message.
func sendRPCError(_ context.Context, _ any, method mcp.MCPMethod, _ any, err error) {
	if method != mcp.MethodResourcesRead && method != mcp.MethodPromptsGet {
		return
	}
	var rpc *errs.RPCError
	if !errors.As(err, &rpc) {
		return
	}
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return
	}
	st := v.Elem()
	if st.Type().Name() != "requestError" || st.Type().PkgPath() != "github.com/mark3labs/mcp-go/server" {
		return
	}
	code, data, inner := st.FieldByName("code"), st.FieldByName("data"), st.FieldByName("err")
	if code.Kind() != reflect.Int || data.Kind() != reflect.Interface || data.NumMethod() != 0 ||
		inner.Kind() != reflect.Interface {
		return
	}
	writable(code).SetInt(int64(rpc.Code))
	writable(data).Set(reflect.ValueOf(rpc.Data))
}

// writable returns an addressable field of an addressable struct as a
// settable value.
func writable(f reflect.Value) reflect.Value {
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}
