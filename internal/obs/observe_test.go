package obs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// tel is an Observer writing to in-memory recorders.
type tel struct {
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	logs   *logbuf.Buffer
	obs    *obs.Observer
}

func newTel(t *testing.T, opts ...obs.Option) *tel {
	t.Helper()
	r := obstest.Record(t, opts...)
	return &tel{spans: r.Spans, tp: r.TP, reader: r.Reader, logs: r.Logs, obs: r.Obs}
}

// span returns the one ended span with this name.
func (x *tel) span(t *testing.T, name string) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range x.spans.Ended() {
		if s.Name() == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want one span %q, got %d (all: %v)", name, len(found), names(x.spans.Ended()))
	}
	return found[0]
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name()+"("+s.SpanKind().String()+")")
	}
	return out
}

func attrs(s sdktrace.ReadOnlySpan) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

func callLine(t *testing.T, logs *logbuf.Buffer, tool string) map[string]any {
	t.Helper()
	lines, err := logs.Find("tool", tool)
	if err != nil {
		t.Fatal(err) // a line that is not JSON
	}
	var out []map[string]any
	for _, l := range lines {
		if l["msg"] == "tool call" {
			out = append(out, l)
		}
	}
	if len(out) != 1 {
		t.Fatalf("want one log line for %s, got %d: %v", tool, len(out), lines)
	}
	return out[0]
}

func TestEveryOutcomeOverHTTP(t *testing.T) {
	x := newTel(t)
	s := server.NewMCPServer("weather", "1.0.0", attached(wrap.New(obstest.WithObserver(x.obs), wrap.ForTool("slow", wrap.WithTimeout(100*time.Millisecond)))))
	s.AddTools(testserver.OutcomeTools()...)
	conn := testserver.StartHTTP(t, s)

	cases := []struct {
		tool, outcome, errorType, code, level string
		isError                               bool
		status                                codes.Code
		event                                 string
	}{
		{"ok", "success", "", "", "INFO", false, codes.Unset, ""},
		{"tool_error", "tool_error", "tool_error", "", "WARN", true, codes.Error, ""},
		{"invalid", "invalid_argument", "tool_error", "invalid_argument", "WARN", true, codes.Error, "exception"},
		{"panics", "panic", "tool_error", "internal", "ERROR", true, codes.Error, semconv.EventPanic},
		{"slow", "timeout", "tool_error", "timeout", "WARN", true, codes.Error, "exception"},
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			res, err := conn.Call(t.Context(), tc.tool, map[string]any{"city": "Rome"})
			if err != nil || res.IsError != tc.isError {
				t.Fatalf("call: %v, %+v", err, res)
			}
			sp := x.span(t, "tools/call "+tc.tool)
			a := attrs(sp)
			want := map[string]string{
				"mcp.method.name": "tools/call", "gen_ai.tool.name": tc.tool, "gen_ai.operation.name": "execute_tool",
				"network.transport": "tcp", "mcpwrap.outcome": tc.outcome, "mcpwrap.attempts": "1",
			}
			if tc.errorType != "" {
				want["error.type"] = tc.errorType
			}
			if tc.code != "" {
				want["mcpwrap.error.code"] = tc.code
			}
			for k, v := range want {
				if a[k] != v {
					t.Errorf("span attribute %s = %q, want %q (all: %v)", k, a[k], v, a)
				}
			}
			for _, k := range []string{"jsonrpc.request.id", "mcp.protocol.version", "mcpwrap.call.id"} {
				if a[k] == "" {
					t.Errorf("span attribute %s missing: %v", k, a)
				}
			}
			if tc.errorType == "" && a["error.type"] != "" {
				t.Errorf("error.type set on success: %v", a)
			}
			if sp.SpanKind() != trace.SpanKindServer {
				t.Errorf("kind %v, want server", sp.SpanKind())
			}
			if sp.Status().Code != tc.status {
				t.Errorf("status %v, want %v", sp.Status(), tc.status)
			}
			if tc.event != "" && !slices.ContainsFunc(sp.Events(), func(e sdktrace.Event) bool { return e.Name == tc.event }) {
				t.Errorf("no %q event: %v", tc.event, sp.Events())
			}
			if tc.tool == "panics" {
				ev := sp.Events()[slices.IndexFunc(sp.Events(), func(e sdktrace.Event) bool { return e.Name == semconv.EventPanic })]
				m := map[string]string{}
				for _, kv := range ev.Attributes {
					m[string(kv.Key)] = kv.Value.Emit()
				}
				if !strings.Contains(m["exception.stacktrace"], "testserver/outcomes.go") || !strings.Contains(m["exception.message"], "nil map") {
					t.Errorf("panic event lacks value or stack: %v", m)
				}
				if text := res.Content[0].(mcp.TextContent).Text; strings.Contains(text, "testserver/outcomes.go") || strings.Contains(text, "nil map") {
					t.Errorf("panic detail reached the result: %s", text)
				}
			}

			l := callLine(t, x.logs, tc.tool)
			wantLog := map[string]any{"outcome": tc.outcome, "level": tc.level, "attempts": 1.0,
				"call_id": a["mcpwrap.call.id"], "request_id": a["jsonrpc.request.id"],
				"protocol_version": a["mcp.protocol.version"],
				"trace_id":         sp.SpanContext().TraceID().String(), "span_id": sp.SpanContext().SpanID().String()}
			if tc.code != "" {
				wantLog["code"] = tc.code
			}
			for k, v := range wantLog {
				if l[k] != v {
					t.Errorf("log %s = %v, want %v (line %v)", k, l[k], v, l)
				}
			}
			if args, _ := l["arguments"].(map[string]any); args["city"] != "<string, 4 bytes>" {
				t.Errorf("log arguments = %v", l["arguments"])
			}
			if _, ok := l["duration_ms"].(float64); !ok {
				t.Errorf("no duration_ms: %v", l)
			}
			// A failure has a cause; so has an error result the handler
			// built (its text), which is all the operator has of it.
			if (tc.code != "" || tc.outcome == "tool_error") != (l["cause"] != nil) {
				t.Errorf("cause present iff failed: %v", l)
			}
			if tc.outcome == "tool_error" && l["cause"] != "no UV index here" {
				t.Errorf("handler-built error result: cause %v, want its text", l["cause"])
			}
			if tc.tool == "panics" && !strings.Contains(fmt.Sprint(l["stack"]), "testserver/outcomes.go") {
				t.Errorf("panic stack missing from log: %v", l)
			}
		})
	}

	t.Run("handler span is a child of the call span", func(t *testing.T) {
		child, parent := x.span(t, "fetch forecast"), x.span(t, "tools/call ok")
		if child.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Fatalf("child's parent %s, want %s", child.Parent().SpanID(), parent.SpanContext().SpanID())
		}
	})

	t.Run("metrics", func(t *testing.T) {
		var rm metricdata.ResourceMetrics
		if err := x.reader.Collect(t.Context(), &rm); err != nil {
			t.Fatal(err)
		}
		h := findMetric(t, rm, semconv.MetricOperationDuration)
		if h.Unit != "s" {
			t.Errorf("unit %q", h.Unit)
		}
		hist := h.Data.(metricdata.Histogram[float64])
		byTool := map[string]metricdata.HistogramDataPoint[float64]{}
		for _, dp := range hist.DataPoints {
			tool, _ := dp.Attributes.Value(semconv.AttrToolName)
			method, _ := dp.Attributes.Value(semconv.AttrMethodName)
			if method.AsString() != "tools/call" {
				t.Errorf("method attribute %v", method)
			}
			byTool[tool.AsString()] = dp
			if !slices.Equal(dp.Bounds, semconv.DurationBuckets()) {
				t.Errorf("bounds %v", dp.Bounds)
			}
		}
		for _, tc := range cases {
			dp, ok := byTool[tc.tool]
			if !ok || dp.Count != 1 {
				t.Errorf("%s: no single duration point: %+v", tc.tool, dp)
				continue
			}
			et, _ := dp.Attributes.Value(semconv.AttrErrorType)
			if et.AsString() != tc.errorType {
				t.Errorf("%s: error.type %q, want %q", tc.tool, et.AsString(), tc.errorType)
			}
		}
		if n := counterSum(t, rm, semconv.MetricPanics); n != 1 {
			t.Errorf("panics = %d, want 1", n)
		}
	})
}

func findMetric(t *testing.T, rm metricdata.ResourceMetrics, name string) metricdata.Metrics {
	t.Helper()
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != semconv.ScopeName || sm.Scope.Version != semconv.ScopeVersion {
			t.Errorf("scope %v", sm.Scope)
		}
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m
			}
		}
	}
	t.Fatalf("no metric %s", name)
	return metricdata.Metrics{}
}

func counterSum(t *testing.T, rm metricdata.ResourceMetrics, name string) int64 {
	var n int64
	for _, dp := range findMetric(t, rm, name).Data.(metricdata.Sum[int64]).DataPoints {
		n += dp.Value
	}
	return n
}

// TestRetryEvents drives Call.Event directly, the path wrap's retries
// (record.event) and its callers use, for every event kind: span events,
// counters and log lines. The real retry through the chain is
// wrap.TestRetryReachesTheSpanAndTheMetric; the real reconnect is
// TestReconnectReachesTheSpanAndTheMetric.
func TestRetryEvents(t *testing.T) {
	x := newTel(t)
	req := &call.Request{Kind: call.Tool, Name: "flaky", Args: map[string]any{"q": 1}}
	ctx, call := x.obs.Start(t.Context(), req, "call-1")
	call.Event(ctx, slog.LevelWarn, obs.EventRetry, slog.Int("attempt", 2), slog.Duration("backoff", 200*time.Millisecond),
		slog.Any("error", errors.New("dial tcp: connection refused")))
	call.Event(ctx, slog.LevelWarn, obs.EventReconnect, slog.String("upstream", "weather-api"))
	call.Event(ctx, slog.LevelWarn, "upstream.breaker", slog.String("from", "closed"), slog.String("to", "open"))
	call.End(ctx, obs.Report{Outcome: obs.OutcomeSuccess, Attempts: 2, Result: textResult("ok")})

	sp := x.span(t, "tools/call flaky")
	var evs []string
	for _, e := range sp.Events() {
		evs = append(evs, e.Name)
	}
	if !slices.Equal(evs, []string{"retry", "reconnect", "upstream.breaker"}) {
		t.Fatalf("events %v", evs)
	}
	if a := attrs(sp); a["mcpwrap.attempts"] != "2" || a["error.type"] != "" || a["network.transport"] != "pipe" {
		t.Fatalf("attributes %v", a)
	}
	lines, err := x.logs.Find("event", "retry")
	if err != nil || len(lines) != 1 || lines[0]["call_id"] != "call-1" || lines[0]["attempt"] != 2.0 ||
		lines[0]["trace_id"] != sp.SpanContext().TraceID().String() {
		t.Fatalf("retry log line: %v %v", lines, err)
	}
	if l := callLine(t, x.logs, "flaky"); l["attempts"] != 2.0 {
		t.Fatalf("call line attempts: %v", l)
	}
	var rm metricdata.ResourceMetrics
	if err := x.reader.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	if r, c := counterSum(t, rm, semconv.MetricRetries), counterSum(t, rm, semconv.MetricReconnects); r != 1 || c != 1 {
		t.Fatalf("retries %d reconnects %d", r, c)
	}
}

func TestProtocolErrorRecordsJSONRPCCode(t *testing.T) {
	x := newTel(t)
	h := mcpgo.Tool(wrap.New(), mcp.NewTool("p"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, wrap.ProtocolError(errors.New("session state lost"))
	}, obstest.WithObserver(x.obs)).Handler
	if _, err := h(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "p"}}); err == nil {
		t.Fatal("want the protocol error")
	}
	a := attrs(x.span(t, "tools/call p"))
	if a["error.type"] != "-32603" || a["rpc.response.status_code"] != "-32603" {
		t.Fatalf("attributes %v", a)
	}
}

// TestParentFromMeta: a client-sent params._meta traceparent is the parent
// of the server's call span, with and without mcp-go's own WithTracer, and
// there is exactly one server span for the call.
func TestParentFromMeta(t *testing.T) {
	for _, withTracer := range []bool{false, true} {
		t.Run(fmt.Sprintf("mcp-go WithTracer=%v", withTracer), func(t *testing.T) {
			x := newTel(t)
			opts := []server.ServerOption{attached(wrap.New(obstest.WithObserver(x.obs)))}
			if withTracer {
				opts = append(opts, server.WithTracer(mcpgo.Tracer(wrap.New(obstest.WithObserver(x.obs)))))
			}
			s := server.NewMCPServer("weather", "1.0.0", opts...)
			s.AddTools(testserver.OutcomeTools()...)
			// The client has its own provider, as a separate process would.
			clientSpans := tracetest.NewSpanRecorder()
			ctp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(clientSpans))
			clientObs := obs.New(obs.WithTracerProvider(ctp))
			conn := testserver.StartHTTP(t, s, client.WithMetaPropagator(mcpgo.MetaPropagator(wrap.New(obstest.WithObserver(clientObs)))))
			x.spans = resetRecorder(x)

			ctx, root := ctp.Tracer("client").Start(t.Context(), "agent step", trace.WithSpanKind(trace.SpanKindClient))
			if _, err := conn.Call(ctx, "ok", nil); err != nil {
				t.Fatal(err)
			}
			root.End()
			sp := x.span(t, "tools/call ok")
			if sp.Parent().TraceID() != root.SpanContext().TraceID() {
				t.Fatalf("server span in trace %s, client in %s", sp.Parent().TraceID(), root.SpanContext().TraceID())
			}
			var servers int
			for _, s := range x.spans.Ended() {
				if s.SpanContext().TraceID() != root.SpanContext().TraceID() {
					t.Errorf("span %s is in another trace (a second root)", s.Name())
				}
				if s.SpanKind() == trace.SpanKindServer && strings.HasPrefix(s.Name(), "tools/call") {
					servers++
				}
			}
			if servers != 1 {
				t.Fatalf("%d server spans for one call: %v", servers, names(x.spans.Ended()))
			}
			if !withTracer && sp.Parent().SpanID() != root.SpanContext().SpanID() {
				t.Fatalf("parent %s, want the client's span %s", sp.Parent().SpanID(), root.SpanContext().SpanID())
			}
			if withTracer {
				if sp.Parent().SpanID() != root.SpanContext().SpanID() {
					t.Fatalf("mcp-go's server span should be the call span, child of the client's: %v", names(x.spans.Ended()))
				}
				if a := attrs(sp); a["gen_ai.tool.name"] != "ok" || a["mcpwrap.outcome"] != "success" {
					t.Fatalf("adopted span lacks our attributes: %v", a)
				}
			}
		})
	}
}

// resetRecorder forgets the initialize spans, so each subtest sees only its call.
func resetRecorder(x *tel) *tracetest.SpanRecorder {
	rec := tracetest.NewSpanRecorder()
	x.tp.RegisterSpanProcessor(rec)
	return rec
}

func TestParentFromHTTPHeader(t *testing.T) {
	x := newTel(t)
	s := server.NewMCPServer("weather", "1.0.0", attached(wrap.New(obstest.WithObserver(x.obs))))
	s.AddTools(testserver.OutcomeTools()...)
	ctp := sdktrace.NewTracerProvider()
	clientObs := obs.New(obs.WithTracerProvider(ctp))
	conn := testserver.StartHTTP(t, s, client.WithPropagator(mcpgo.HTTPPropagator(wrap.New(obstest.WithObserver(clientObs)))))
	ctx, root := ctp.Tracer("client").Start(t.Context(), "agent step")
	if _, err := conn.Call(ctx, "ok", nil); err != nil {
		t.Fatal(err)
	}
	root.End()
	if got := x.span(t, "tools/call ok").Parent().SpanID(); got != root.SpanContext().SpanID() {
		t.Fatalf("parent %s, want %s", got, root.SpanContext().SpanID())
	}
}

func TestArgumentsAndResultAttributesAreOptIn(t *testing.T) {
	for _, on := range []bool{false, true} {
		x := newTel(t, obs.WithArgumentValues(), obs.WithArgumentsAttribute(on), obs.WithResultAttribute(on))
		h := mcpgo.Tool(wrap.New(), mcp.NewTool("ok"), testserver.OutcomeTools()[0].Handler, obstest.WithObserver(x.obs)).Handler
		if _, err := h(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "ok", Arguments: map[string]any{"city": "Oslo"}}}); err != nil {
			t.Fatal(err)
		}
		a := attrs(x.span(t, "tools/call ok"))
		_, hasArgs := a["gen_ai.tool.call.arguments"]
		_, hasRes := a["gen_ai.tool.call.result"]
		if hasArgs != on || hasRes != on {
			t.Fatalf("opt-in %v: %v", on, a)
		}
		if on && (!strings.Contains(a["gen_ai.tool.call.arguments"], "Oslo") || !strings.Contains(a["gen_ai.tool.call.result"], "sunny in Oslo")) {
			t.Fatalf("attributes %v", a)
		}
	}
}

func TestEveryLogLineIsJSON(t *testing.T) {
	x := newTel(t)
	s := server.NewMCPServer("w", "1", attached(wrap.New(obstest.WithObserver(x.obs), wrap.ForTool("slow", wrap.WithTimeout(50*time.Millisecond)))))
	s.AddTools(testserver.OutcomeTools()...)
	conn := testserver.StartHTTP(t, s)
	for _, st := range testserver.OutcomeTools() {
		if _, err := conn.Call(t.Context(), st.Tool.Name, map[string]any{"nested": map[string]any{"a": []any{1, "two"}}}); err != nil {
			t.Fatal(err)
		}
	}
	lines, err := x.logs.Lines()
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) < len(testserver.OutcomeTools()) {
		t.Fatalf("%d lines", len(lines))
	}
	for _, l := range lines {
		if _, err := json.Marshal(l); err != nil {
			t.Fatal(err)
		}
	}
}

func TestArgumentsAreCapped(t *testing.T) {
	x := newTel(t, obs.WithArgumentValues(), obs.WithMaxArgumentBytes(64))
	h := mcpgo.Tool(wrap.New(), mcp.NewTool("ok"), testserver.OutcomeTools()[0].Handler, obstest.WithObserver(x.obs)).Handler
	long := strings.Repeat("x", 1000)
	if _, err := h(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "ok", Arguments: map[string]any{"city": long}}}); err != nil {
		t.Fatal(err)
	}
	args, _ := callLine(t, x.logs, "ok")["arguments"].(string)
	if len(args) > 120 || !strings.Contains(args, "truncated") {
		t.Fatalf("arguments not capped: %q", args)
	}
}

func TestWithoutTelemetryNothingIsRecorded(t *testing.T) {
	x := newTel(t, obs.WithoutTracing(), obs.WithoutMetrics())
	h := mcpgo.Tool(wrap.New(), mcp.NewTool("ok"), testserver.OutcomeTools()[0].Handler, obstest.WithObserver(x.obs)).Handler
	if _, err := h(t.Context(), mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "ok"}}); err != nil {
		t.Fatal(err)
	}
	if n := len(x.spans.Ended()); n != 0 {
		t.Fatalf("%d spans: %v", n, names(x.spans.Ended()))
	}
	l := callLine(t, x.logs, "ok")
	if _, ok := l["trace_id"]; ok {
		t.Fatalf("trace id without tracing: %v", l)
	}
}

func TestAttributeValuesAreStrings(t *testing.T) {
	// jsonrpc.request.id is a string attribute even for numeric ids.
	x := newTel(t)
	s := server.NewMCPServer("w", "1", attached(wrap.New(obstest.WithObserver(x.obs))))
	s.AddTools(testserver.OutcomeTools()...)
	s.HandleMessage(t.Context(), []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"ok"}}`))
	for _, kv := range x.span(t, "tools/call ok").Attributes() {
		if kv.Key == semconv.AttrRequestID {
			if kv.Value.Type() != attribute.STRING || kv.Value.AsString() != "42" {
				t.Fatalf("request id %v", kv.Value)
			}
			return
		}
	}
	t.Fatal("no request id")
}

func reqFor(tool string) *call.Request {
	return &call.Request{Kind: call.Tool, Name: tool}
}

// TestRequestIDsAreForgotten: the hook that records JSON-RPC request ids
// must give every one back once the call is answered — success, isError,
// panic, and calls mcp-go itself rejects (unknown tool) — or the map grows
// for the life of the server.
func TestRequestIDsAreForgotten(t *testing.T) {
	x := newTel(t)
	s := server.NewMCPServer("ids", "1.0.0", attached(wrap.New(obstest.WithObserver(x.obs))))
	s.AddTools(testserver.OutcomeTools()...)
	conn := testserver.StartHTTP(t, s)
	for _, name := range []string{"ok", "tool_error", "invalid", "panics", "ok"} {
		if _, err := conn.Call(t.Context(), name, nil); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := conn.Call(t.Context(), "no_such_tool", nil); err == nil {
		t.Fatal("an unknown tool should be a JSON-RPC error")
	}
	if line := callLine(t, x.logs, "invalid"); line["request_id"] == nil || line["request_id"] == "" {
		t.Fatalf("the request id did not reach the log line: %v", line)
	}
	if n := obs.PendingRequestIDs(x.obs); n != 0 {
		t.Fatalf("%d request ids still held after every call was answered", n)
	}
}

// TestSessionIDOnStatefulSessions: with the 2025-11-25 handshake, HTTP
// sessions have an id, and it reaches the span and the log line.
func TestSessionIDOnStatefulSessions(t *testing.T) {
	x := newTel(t)
	s := server.NewMCPServer("w", "1", attached(wrap.New(obstest.WithObserver(x.obs))))
	s.AddTools(testserver.OutcomeTools()...)
	conn := testserver.StartHTTP(t, s, client.WithProtocolVersion("2025-11-25"))
	if _, err := conn.Call(t.Context(), "ok", nil); err != nil {
		t.Fatal(err)
	}
	a := attrs(x.span(t, "tools/call ok"))
	if a["mcp.session.id"] == "" || a["mcp.protocol.version"] != "2025-11-25" {
		t.Fatalf("attributes %v", a)
	}
	if l := callLine(t, x.logs, "ok"); l["session_id"] != a["mcp.session.id"] {
		t.Fatalf("log %v", l)
	}
}

// textResult is a successful result of one text, as an adapter hands it
// to the observer.
type textResult string

func (t textResult) Status() call.Status                       { return call.Success }
func (t textResult) Check() error                              { return nil }
func (t textResult) Text() string                              { return string(t) }
func (t textResult) MapText(f func(string) string) call.Result { return textResult(f(string(t))) }
