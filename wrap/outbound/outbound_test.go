package outbound_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/mcptest"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap/outbound"
	"github.com/mcpwrap/mcpwrap/wrap/outbound/outboundtest"
)

// startKitchen serves a kitchen on 127.0.0.1:0 for the test.
func startKitchen(t *testing.T) *outboundtest.Server {
	t.Helper()
	k := outboundtest.NewServer("")
	t.Cleanup(func() { _ = k.Close() })
	return k
}

// connect starts and initializes a real mcp-go client whose HTTP client goes
// through outbound.NewTransport, in its own kitchen session.
func connect(t *testing.T, url, session string, opts ...transport.StreamableHTTPCOption) *client.Client {
	t.Helper()
	hc := &http.Client{Transport: outbound.NewTransport(nil, outbound.WithMaxMessageBytes(1<<20))}
	opts = append([]transport.StreamableHTTPCOption{transport.WithHTTPBasicClient(hc),
		transport.WithHTTPHeaders(map[string]string{outboundtest.HeaderSession: session})}, opts...)
	st, err := transport.NewStreamableHTTP(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(st)
	t.Cleanup(func() { _ = c.Close(); hc.CloseIdleConnections() })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "outbound-test", Version: "0"}}}); err != nil {
		t.Fatal(err)
	}
	return c
}

func callReq(tool string, args map[string]any) mcp.CallToolRequest {
	var r mcp.CallToolRequest
	r.Params.Name = tool
	r.Params.Arguments = args
	return r
}

// setScenario sets the scenario of a kitchen session.
func setScenario(t *testing.T, k *outboundtest.Server, session, scenario string) {
	t.Helper()
	if err := k.SetScenario(session, scenario); err != nil {
		t.Fatal(err)
	}
}

type want struct {
	outcome  outbound.Outcome
	statuses []int
	code     int64
}

// TestKitchenScenarios: through a real mcp-go client and the kitchen, each
// scenario yields its outcome, and the POSTs are counted.
func TestKitchenScenarios(t *testing.T) {
	k := startKitchen(t)
	cases := []struct {
		scenario string
		calls    []want // one per successive call
		timeout  time.Duration
	}{
		{"baseline", []want{{outbound.OutcomeToolSuccess, []int{200}, 0}}, 0},
		{"http_status_sequence?statuses=503,200", []want{{outbound.OutcomeHTTPError, []int{503}, 0}, {outbound.OutcomeToolSuccess, []int{200}, 0}}, 0},
		{"jsonrpc_error?code=-32602", []want{{outbound.OutcomeJSONRPCError, []int{200}, -32602}}, 0},
		{"jsonrpc_error?code=-32001&call=2", []want{{outbound.OutcomeToolSuccess, []int{200}, 0}, {outbound.OutcomeJSONRPCError, []int{200}, -32001}}, 0},
		{"jsonrpc_error?sse=true", []want{{outbound.OutcomeJSONRPCError, []int{200}, -32602}}, 0},
		{"tool_error", []want{{outbound.OutcomeToolError, []int{200}, 0}}, 0},
		{"malformed_payload", []want{{outbound.OutcomeMalformedJSON, []int{200}, 0}}, 0},
		{"malformed_payload?variant=html", []want{{outbound.OutcomeMalformedJSON, []int{200}, 0}}, 0},
		{"non_compliant_envelope", []want{{outbound.OutcomeInvalidEnvelope, []int{200}, 0}}, 0},
		{"non_compliant_envelope?variant=wrong_id", []want{{outbound.OutcomeInvalidEnvelope, []int{200}, 0}}, 0},
		{"non_compliant_envelope?variant=string_id", []want{{outbound.OutcomeInvalidEnvelope, []int{200}, 0}}, 0},
		{"non_compliant_envelope?variant=batch", []want{{outbound.OutcomeInvalidEnvelope, []int{200}, 0}}, 0},
		{"non_compliant_envelope?variant=content_string", []want{{outbound.OutcomeInvalidToolResult, []int{200}, 0}}, 0},
		{"non_compliant_envelope?variant=null_result", []want{{outbound.OutcomeInvalidToolResult, []int{200}, 0}}, 0},
		{"connection_close", []want{{outbound.OutcomeNetworkError, []int{0}, 0}}, 0},
		{"sse_truncated", []want{{outbound.OutcomeIncompleteStream, []int{200}, 0}}, 0},
		{"sse", []want{{outbound.OutcomeToolSuccess, []int{200}, 0}}, 0},
		{"uncooperative_hang", []want{{outbound.OutcomeNetworkError, []int{0}, 0}}, 300 * time.Millisecond},
		{"late_response?delay=50ms", []want{{outbound.OutcomeToolSuccess, []int{200}, 0}}, 0},
		{"late_response?delay=2s", []want{{outbound.OutcomeNetworkError, []int{0}, 0}}, 200 * time.Millisecond},
		{"auth_token?until=2", []want{{outbound.OutcomeHTTPError, []int{401}, 0}, {outbound.OutcomeToolSuccess, []int{200}, 0}}, 0},
		{"input_required", []want{{outbound.OutcomeInputRequired, []int{200}, 0}}, 0},
	}
	for i, tc := range cases {
		t.Run(tc.scenario, func(t *testing.T) {
			session := fmt.Sprintf("s%d", i)
			mc := connect(t, k.URL, session)
			setScenario(t, k, session, tc.scenario)
			c := outbound.New(mc)
			for n, w := range tc.calls {
				ctx := t.Context()
				if tc.timeout > 0 {
					var cancel context.CancelFunc
					ctx, cancel = context.WithTimeout(ctx, tc.timeout)
					defer cancel()
				}
				r := c.Call(ctx, callReq("echo", map[string]any{"text": "hi"}))
				if r.Outcome != w.outcome || !slices.Equal(r.HTTPStatuses, w.statuses) || r.Verdict.ErrorCode != w.code {
					t.Errorf("call %d: %s %v code %d (%s; err %v), want %s %v code %d",
						n+1, r.Outcome, r.HTTPStatuses, r.Verdict.ErrorCode, r.Verdict.Detail, r.Err, w.outcome, w.statuses, w.code)
				}
				if r.PostCount != len(w.statuses) || r.Attempts != 1 || r.RetryOrigin != "none" {
					t.Errorf("call %d: postCount %d attempts %d origin %s; nothing may retry on its own", n+1, r.PostCount, r.Attempts, r.RetryOrigin)
				}
			}
		})
	}
}

// TestHTTP500WithAResultBody: mcp-go v1.2.1 hands a 500's body to the caller
// as a result; the wire outcome is HTTP_ERROR and CallTool says so.
func TestHTTP500WithAResultBody(t *testing.T) {
	k, err := outboundtest.NewHandler("")
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			if strings.Contains(string(b), `"tools/call"`) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusInternalServerError)
				id := strings.SplitN(strings.SplitN(string(b), `"id":`, 2)[1], ",", 2)[0]
				_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":"looks fine"}]}}`)
				return
			}
			r.Body = io.NopCloser(strings.NewReader(string(b)))
		}
		k.ServeHTTP(w, r)
	}))
	defer srv.Close()
	mc := connect(t, srv.URL+"/mcp", "x")

	bare, err := mc.CallTool(t.Context(), callReq("echo", nil))
	if err != nil || bare == nil || bare.IsError {
		t.Fatalf("expected bare mcp-go to take the 500 for a success, got %v, %v", bare, err)
	}
	res, err := outbound.New(mc).CallTool(t.Context(), callReq("echo", nil))
	var oe *outbound.CallError
	if res != nil || !errors.As(err, &oe) || oe.Report.Outcome != outbound.OutcomeHTTPError || oe.Report.Verdict.HTTPStatus != 500 {
		t.Fatalf("CallTool = %v, %v; want an HTTP_ERROR 500", res, err)
	}
}

// TestStrayResponseOnTheStream: the server's event stream first answers
// another request id, then this call with isError true. mcp-go v1.2.1 takes
// the first response for this call's; the wire outcome is TOOL_ERROR, the
// report says the stray was skipped, and CallTool does not hand over the
// other request's result.
func TestStrayResponseOnTheStream(t *testing.T) {
	k := startKitchen(t)
	mc := connect(t, k.URL, "stray")
	setScenario(t, k, "stray", "tool_error?stray=true")
	bare, err := mc.CallTool(t.Context(), callReq("echo", nil))
	if err != nil || bare == nil || bare.IsError {
		t.Fatalf("expected bare mcp-go to return the stray success, got %v, %v", bare, err)
	}
	c := outbound.New(mc)
	r := c.Call(t.Context(), callReq("echo", nil))
	if r.Outcome != outbound.OutcomeToolError || r.Verdict.StrayResponses != 1 || r.Verdict.StrayID != `"kitchen-stray"` ||
		!strings.Contains(r.Verdict.Detail, "skipped a response to another request") {
		t.Fatalf("%s, %d strays (%s), detail %q; want TOOL_ERROR after one skipped stray", r.Outcome, r.Verdict.StrayResponses, r.Verdict.StrayID, r.Verdict.Detail)
	}
	res, err := c.CallTool(t.Context(), callReq("echo", nil))
	var ce *outbound.CallError
	if res != nil || !errors.As(err, &ce) || ce.Report.Outcome != outbound.OutcomeToolError {
		t.Fatalf("CallTool = %v, %v; want a *CallError saying TOOL_ERROR, not the other request's result", res, err)
	}
}

// TestRetry: with WithRetry, idempotent calls are retried per outbound.Advise;
// others never are.
func TestRetry(t *testing.T) {
	k := startKitchen(t)
	cases := []struct {
		name     string
		scenario string
		tool     string
		outcome  outbound.Outcome
		statuses []int
		sleeps   []time.Duration
	}{
		{"503 twice then 200", "http_status_sequence?statuses=503,503,200", "echo", outbound.OutcomeToolSuccess, []int{503, 503, 200}, []time.Duration{150 * time.Millisecond, 300 * time.Millisecond}},
		{"limit of two retries", "http_status_sequence?statuses=503,503,503,200", "echo", outbound.OutcomeHTTPError, []int{503, 503, 503}, []time.Duration{150 * time.Millisecond, 300 * time.Millisecond}},
		{"429 Retry-After wins", "http_status_sequence?statuses=429,200&retry_after=2", "echo", outbound.OutcomeToolSuccess, []int{429, 200}, []time.Duration{2 * time.Second}},
		{"not idempotent: no retry", "http_status_sequence?statuses=503,200", "add", outbound.OutcomeHTTPError, []int{503}, nil},
		{"-32602: no retry", "jsonrpc_error", "echo", outbound.OutcomeJSONRPCError, []int{200}, nil},
		{"truncated stream retried", "sse_truncated?call=1", "echo", outbound.OutcomeToolSuccess, []int{200, 200}, []time.Duration{150 * time.Millisecond}},
		{"connection close retried", "connection_close?call=1", "echo", outbound.OutcomeToolSuccess, []int{0, 200}, []time.Duration{150 * time.Millisecond}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			session := fmt.Sprintf("r%d", i)
			mc := connect(t, k.URL, session)
			setScenario(t, k, session, tc.scenario)
			var sleeps []time.Duration
			var logs logbuf.Buffer
			c := outbound.New(mc,
				outbound.WithRetry(outbound.WithRand(outbound.RetryLimits{}, func() float64 { return 0.5 })),
				outbound.WithIdempotent(func(tool string) bool { return tool == "echo" }),
				outbound.WithSleep(func(_ context.Context, d time.Duration) error { sleeps = append(sleeps, d); return nil }),
				outbound.WithLogger(logs.Logger()))
			r := c.Call(t.Context(), callReq(tc.tool, map[string]any{"a": 1, "b": 2}))
			if r.Outcome != tc.outcome || !slices.Equal(r.HTTPStatuses, tc.statuses) || !slices.Equal(sleeps, tc.sleeps) {
				t.Errorf("%s %v sleeps %v (%s), want %s %v sleeps %v", r.Outcome, r.HTTPStatuses, sleeps, r.Advice.Reason, tc.outcome, tc.statuses, tc.sleeps)
			}
			wantOrigin := "none"
			if len(tc.sleeps) > 0 {
				wantOrigin = "sdk"
			}
			lines, err := logs.Lines()
			if err != nil || len(lines) != 1 {
				t.Fatalf("want one log record per call, got %d (%v)", len(lines), err)
			}
			if lines[0]["retryOrigin"] != wantOrigin || lines[0]["attempts"] != float64(len(tc.sleeps)+1) {
				t.Errorf("log retryOrigin %v attempts %v, want %s %d", lines[0]["retryOrigin"], lines[0]["attempts"], wantOrigin, len(tc.sleeps)+1)
			}
		})
	}
}

// TestLogRecord: one record per call with the documented fields.
func TestLogRecord(t *testing.T) {
	k := startKitchen(t)
	mc := connect(t, k.URL, "log")
	setScenario(t, k, "log", "jsonrpc_error?call=2")
	var logs logbuf.Buffer
	c := outbound.New(mc, outbound.WithLogger(logs.Logger().With("client", "gateway@1")))
	_ = c.Call(t.Context(), callReq("echo", nil))
	_ = c.Call(outbound.ManualRetry(t.Context()), callReq("echo", nil))
	lines, err := logs.Lines()
	if err != nil || len(lines) != 2 {
		t.Fatalf("%d lines, %v", len(lines), err)
	}
	ok, bad := lines[0], lines[1]
	for key, want := range map[string]any{
		"msg": "tools/call", "client": "gateway@1", "protocolVersion": mcp.LATEST_PROTOCOL_VERSION, "method": "tools/call",
		"tool": "echo", "postCount": float64(1), "resultType": nil, "outcome": "JSONRPC_ERROR", "layer": "protocol",
		"retryOrigin": "manual", "level": "ERROR", "retryAdvised": false,
	} {
		if fmt.Sprint(bad[key]) != fmt.Sprint(want) {
			t.Errorf("%s = %v, want %v", key, bad[key], want)
		}
	}
	if fmt.Sprint(bad["httpStatuses"]) != "[200]" {
		t.Errorf("httpStatuses = %v", bad["httpStatuses"])
	}
	rpc, _ := bad["jsonrpc"].(map[string]any)
	if _, isNumber := rpc["id"].(float64); rpc["errorCode"] != float64(-32602) || !isNumber {
		t.Errorf("jsonrpc = %v", bad["jsonrpc"])
	}
	if ok["outcome"] != "TOOL_SUCCESS" || ok["resultType"] != "complete" || ok["level"] != "INFO" || ok["retryOrigin"] != "none" {
		t.Errorf("success record: %v", ok)
	}
	if okRPC, _ := ok["jsonrpc"].(map[string]any); okRPC["errorCode"] != nil {
		t.Errorf("errorCode on success: %v", okRPC)
	}
}

// TestConcurrentCallsKeepTheirPosts: each call sees only its own POSTs.
func TestConcurrentCallsKeepTheirPosts(t *testing.T) {
	k := startKitchen(t)
	mc := connect(t, k.URL, "conc")
	c := outbound.New(mc)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			r := c.Call(t.Context(), callReq("echo", map[string]any{"text": fmt.Sprint(i)}))
			if r.Outcome != outbound.OutcomeToolSuccess || r.PostCount != 1 || r.Verdict.Text != fmt.Sprint(i) {
				t.Errorf("call %d: %s posts %d text %q", i, r.Outcome, r.PostCount, r.Verdict.Text)
			}
		})
	}
	wg.Wait()
}

// TestStdioFallback: without the HTTP transport, Call classifies what mcp-go
// decoded.
func TestStdioFallback(t *testing.T) {
	srv := mcptest.NewUnstartedServer(t)
	srv.AddTool(mcp.NewTool("ok"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("fine"), nil
	})
	srv.AddTool(mcp.NewTool("fails"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultError("broken"), nil
	})
	srv.AddTool(mcp.NewTool("rpc"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("boom")
	})
	if err := srv.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := outbound.New(srv.Client())
	for tool, want := range map[string]outbound.Outcome{"ok": outbound.OutcomeToolSuccess, "fails": outbound.OutcomeToolError, "rpc": outbound.OutcomeJSONRPCError} {
		r := c.Call(t.Context(), callReq(tool, nil))
		if r.Outcome != want || r.PostCount != 0 {
			t.Errorf("%s: %s (posts %d), want %s", tool, r.Outcome, r.PostCount, want)
		}
	}
}
