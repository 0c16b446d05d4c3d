package wrap_test

import (
	"context"
	"errors"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// TestURLElicitationCodeLoggedIsTheCodeOnTheWire: a URL elicitation was
// logged and traced as -32042 whatever the client, while mcp-go sends
// -32042 only before protocol 2026-07-28 and -32603 from then on. Each
// case also fails if an mcp-go upgrade changes which code it sends.
func TestURLElicitationCodeLoggedIsTheCodeOnTheWire(t *testing.T) {
	cases := []struct {
		name     string
		protocol string
		wire     int
	}{
		{"2025-11-25 client", "2025-11-25", mcp.URL_ELICITATION_REQUIRED},
		{"2026-07-28 client", "2026-07-28", mcp.INTERNAL_ERROR},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tel := obstest.Record(t, obs.WithoutMetrics())
			spans, logs := tel.Spans, tel.Logs
			s := server.NewMCPServer("billing", "1.0.0", attached(wrap.New(tel.Option())))
			s.AddTool(mcp.NewTool("connect_bank"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, mcp.URLElicitationRequiredError{Elicitations: []mcp.ElicitationParams{{
					Mode: mcp.ElicitationModeURL, ElicitationID: "e1", URL: "https://bank.example/consent", Message: "Connect your bank",
				}}}
			})
			conn := testserver.StartHTTP(t, s, client.WithProtocolVersion(c.protocol))
			if _, err := conn.Call(t.Context(), "connect_bank", nil); err == nil {
				t.Fatal("want a JSON-RPC error")
			}
			if got := lastError(t, conn.Wire).Code; got != c.wire {
				t.Fatalf("mcp-go sent %d to a %s client, want %d: has its handlerError changed?", got, c.protocol, c.wire)
			}
			lines, err := callLines(logs, "connect_bank")
			if err != nil || len(lines) != 1 {
				t.Fatalf("want one log line, got %v (%v)", lines, err)
			}
			if got := lines[0]["jsonrpc_code"]; got != float64(c.wire) {
				t.Errorf("log line says jsonrpc_code %v, the wire %d", got, c.wire)
			}
			ended := spans.Ended()
			if len(ended) != 1 {
				t.Fatalf("%d spans, want 1", len(ended))
			}
			var spanCode attribute.Value
			for _, a := range ended[0].Attributes() {
				if a.Key == "rpc.response.status_code" {
					spanCode = a.Value
				}
			}
			if spanCode.AsInt64() != int64(c.wire) {
				t.Errorf("span says rpc.response.status_code %v, the wire %d", spanCode.Emit(), c.wire)
			}
		})
	}
}

// TestProtocolErrorCodeReachesLogLine: the code given to call.ProtocolError
// was lost (the log line said -32603) because the chain kept only the
// unwrapped error; go-sdk's "unknown tool" (-32602) was logged as -32603.
func TestProtocolErrorCodeReachesLogLine(t *testing.T) {
	var buf logbuf.Buffer
	w := wrap.New(wrap.WithLogger(buf.Logger()))
	inner := errors.New(`unknown tool "nope"`)
	for _, kind := range []call.Kind{call.Tool, call.Prompt} {
		a := adapter.Chain(w)(context.Background(), &call.Request{Kind: kind, Name: "nope"}, func(context.Context, *call.Request) (call.Result, error) {
			return nil, call.ProtocolError(inner, -32602, errs.Internal)
		})
		// The SDK gets the inner error behind errbase.Guard: its text, and
		// errors.Is/As find it.
		if a.Protocol == nil || !errors.Is(a.Protocol, inner) || a.Protocol.Error() != inner.Error() {
			t.Fatalf("answer %+v, want the inner error", a)
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
