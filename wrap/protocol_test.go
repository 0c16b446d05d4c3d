package wrap_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/call"
)

// TestProtocolErrorCodeReachesLogLine: the code given to ProtocolErrorCode
// was lost (the log line said -32603) because the chain kept only the
// unwrapped error; go-sdk's "unknown tool" (-32602) was logged as -32603.
func TestProtocolErrorCodeReachesLogLine(t *testing.T) {
	var buf logbuf.Buffer
	w := wrap.New(wrap.WithLogger(buf.Logger()))
	inner := errors.New(`unknown tool "nope"`)
	for _, kind := range []call.Kind{call.Tool, call.Prompt} {
		a := w.Serve(context.Background(), &call.Request{Kind: kind, Name: "nope"}, func(context.Context, *call.Request) (call.Result, error) {
			return nil, wrap.ProtocolErrorCode(inner, -32602)
		})
		if a.Protocol != inner {
			t.Fatalf("answer %+v, want the inner error unchanged", a)
		}
	}
	lines, err := buf.Lines()
	if err != nil || len(lines) != 2 {
		t.Fatalf("%d lines, %v", len(lines), err)
	}
	for _, l := range lines {
		if l["jsonrpc_code"] != float64(-32602) {
			t.Errorf("jsonrpc_code %v, want -32602: %v", l["jsonrpc_code"], l)
		}
	}
}
