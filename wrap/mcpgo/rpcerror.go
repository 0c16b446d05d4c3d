package mcpgo

import (
	"reflect"

	"github.com/mcpwrap/mcpwrap/internal/errmap"
)

// requestErrorCode returns the JSON-RPC code of mcp-go's *requestError.
func requestErrorCode(err error) (int, bool) {
	if code := requestErrorField(err, "code"); code.Kind() == reflect.Int {
		return int(code.Int()), true
	}
	return 0, false
}

// sendRPCError gives a resources/read or prompts/get failure answered by
// the chain its own JSON-RPC code and data. mcp-go v1.2.1 sends every
// error a resource or prompt handler returns as -32603 with the error's
// text, and offers no way to choose the code; its error hooks, though, get
// the very error value it then encodes, after they return. So the hook sets
// that value's code and data from the *errmap.RPCError inside it. The value's
// layout is checked field by field first: on any other mcp-go it changes
// nothing, and the client still reads -32603 with the same safe message.
func sendRPCError(err error, rpc *errmap.RPCError) {
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

// sendCode gives mcp-go's *requestError in err the JSON-RPC code code,
// leaving its data as it is (the layout checked as sendRPCError does).
func sendCode(err error, code int) {
	if c := requestErrorField(err, "code"); c.Kind() == reflect.Int {
		writable(c).SetInt(int64(code))
	}
}
