package obs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// TestEveryRequestHasOneLineAndOneSpan: calls mcp-go answers before any
// middleware runs (unknown tool, unparsable params, input schema
// validation) get their log line, span and duration point like the calls
// the chain sees, and no request gets two.
func TestEveryRequestHasOneLineAndOneSpan(t *testing.T) {
	x := newTel(t)
	s := server.NewMCPServer("w", "1.0.0", server.WithInputSchemaValidation(),
		attached(wrap.New(obstest.WithObserver(x.obs))))
	s.AddTool(mcp.NewTool("weather", mcp.WithString("city", mcp.Required())),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("sunny"), nil
		})
	// The 2025-11-25 handshake, so that a hand-written request needs no
	// per-request protocol _meta.
	conn := testserver.StartHTTP(t, s, client.WithProtocolVersion("2025-11-25"))

	if res := conn.CallRaw(t, "weather", `{"city":"Rome"}`); res.IsError {
		t.Fatalf("valid call: %+v", res)
	}
	if res := conn.CallRaw(t, "weather", `{}`); !res.IsError {
		t.Fatal("a call missing a required argument passed schema validation")
	}
	if _, err := conn.Call(t.Context(), "no_such_tool", nil); err == nil {
		t.Fatal("an unknown tool should be a JSON-RPC error")
	}
	resp, err := conn.Client.GetTransport().SendRequest(t.Context(), transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(int64(900)), Method: string(mcp.MethodToolsCall),
		Params: json.RawMessage(`{"name":["not","a","string"]}`)})
	if err != nil || resp.Error == nil || resp.Error.Code != mcp.INVALID_REQUEST {
		t.Fatalf("unparsable params: %+v %v", resp, err)
	}

	lines, err := x.logs.Find("msg", semconv.MsgToolCall)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{} // error_type by request id
	for _, l := range lines {
		id := fmt.Sprint(l["request_id"])
		if _, dup := got[id]; dup {
			t.Errorf("request %s logged twice: %v", id, lines)
		}
		got[id], _ = l["error_type"].(string)
	}
	wantTypes := []string{"", "-32600", "-32602", "tool_error"}
	var types []string
	for _, v := range got {
		types = append(types, v)
	}
	slices.Sort(types)
	if !slices.Equal(types, wantTypes) {
		t.Fatalf("error types of the log lines %v, want %v (lines %v)", types, wantTypes, lines)
	}
	if got["900"] != "-32600" {
		t.Errorf("the unparsable request's line: %v", got)
	}

	var spans int
	for _, sp := range x.spans.Ended() {
		if sp.SpanKind() == trace.SpanKindServer && strings.HasPrefix(sp.Name(), "tools/call") {
			spans++
		}
	}
	if spans != 4 {
		t.Errorf("%d server spans for 4 requests: %v", spans, names(x.spans.Ended()))
	}
	unknown := x.span(t, "tools/call no_such_tool")
	if a := attrs(unknown); a["error.type"] != "-32602" || a["jsonrpc.request.id"] == "" {
		t.Errorf("unknown tool span: %v", a)
	}

	var rm metricdata.ResourceMetrics
	if err := x.reader.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	var points []string
	for _, dp := range findMetric(t, rm, semconv.MetricOperationDuration).Data.(metricdata.Histogram[float64]).DataPoints {
		et, _ := dp.Attributes.Value(semconv.AttrErrorType)
		for range dp.Count {
			points = append(points, et.AsString())
		}
	}
	slices.Sort(points)
	if !slices.Equal(points, wantTypes) {
		t.Errorf("duration points by error.type %v, want %v", points, wantTypes)
	}
	if n := obs.PendingRequestIDs(x.obs); n != 0 {
		t.Errorf("%d calls still held", n)
	}
}
