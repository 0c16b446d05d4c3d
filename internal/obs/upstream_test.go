package obs_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/upstream"
)

// TestReconnectReachesTheSpanAndTheMetric: a Holder wired with
// upstream.WithEvents(obs.UpstreamEvent) puts its reconnect on the span of
// the call that triggered it and counts it in mcpwrap.tool.reconnects.
func TestReconnectReachesTheSpanAndTheMetric(t *testing.T) {
	x := newTel(t)
	api := testserver.StartRestartable(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	get := func(ctx context.Context, c *http.Client) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+api.Addr+"/", nil)
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return errs.FromStatus("api", resp.StatusCode, resp.Header)
	}
	h := upstream.New("api",
		func(context.Context) (*http.Client, error) {
			return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}, nil
		},
		upstream.WithClose(func(c *http.Client) error { c.CloseIdleConnections(); return nil }),
		upstream.WithEvents(x.obs.UpstreamEvent))
	defer h.Close()
	s := server.NewMCPServer("up", "1.0.0", attached(wrap.New(obstest.WithObserver(x.obs))))
	s.AddTool(mcp.NewTool("fetch"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := h.Do(ctx, get); err != nil {
			return nil, err
		}
		return mcp.NewToolResultText("ok"), nil
	})
	conn := testserver.StartHTTP(t, s)
	call := func() *mcp.CallToolResult {
		res, err := conn.Call(t.Context(), "fetch", nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call(); res.IsError { // first dial: not a reconnect
		t.Fatalf("first call: %+v", res.Content)
	}
	api.Stop()
	if res := call(); !res.IsError { // refused: the client is marked broken
		t.Fatal("a call during the outage succeeded")
	}
	if err := api.Restart(); err != nil {
		t.Fatal(err)
	}
	if res := call(); res.IsError { // redial: the reconnect
		t.Fatalf("after the restart: %+v", res.Content)
	}
	var dialsOnCallSpans int
	for _, sp := range x.spans.Ended() {
		if sp.Name() != "tools/call fetch" {
			continue
		}
		for _, e := range sp.Events() {
			if e.Name == "upstream.dial" {
				dialsOnCallSpans++
			}
		}
	}
	if dialsOnCallSpans != 2 {
		t.Fatalf("want the first dial and the redial on call spans, got %d", dialsOnCallSpans)
	}
	var rm metricdata.ResourceMetrics
	if err := x.reader.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	reconnects := counterSum(t, rm, semconv.MetricReconnects)
	if reconnects != 1 {
		t.Fatalf("reconnects counter = %d, want 1", reconnects)
	}
}

// TestBreakerChangeIsOneEvent: a breaker change reaches the span once,
// under its own name, without an attribute named "event" (which Jaeger's
// classic API shows in place of the event's name).
func TestBreakerChangeIsOneEvent(t *testing.T) {
	x := newTel(t)
	ctx, rec := x.obs.Start(t.Context(), reqFor("fetch"), "c1")
	x.obs.UpstreamEvent(ctx, upstream.EventBreaker, slog.String("upstream", "api"),
		slog.String("event", upstream.EventBreaker), slog.String("from", "closed"), slog.String("to", "open"),
		slog.String("cause", "dial tcp: password=hunter2 refused"))
	rec.Event(ctx, slog.LevelWarn, obs.EventRetry, slog.String("event", "something else"))
	rec.End(ctx, obs.Report{Outcome: obs.OutcomeSuccess, Attempts: 1})
	evs := x.span(t, "tools/call fetch").Events()
	if len(evs) != 2 || evs[0].Name != upstream.EventBreaker || evs[1].Name != obs.EventRetry {
		t.Fatalf("events %v, want one %s and one retry", evs, upstream.EventBreaker)
	}
	got := map[string]string{}
	for _, kv := range evs[0].Attributes {
		got[string(kv.Key)] = kv.Value.Emit()
	}
	if _, ok := got["event"]; ok || got["mcpwrap.upstream"] != "api" || got["to"] != "open" ||
		strings.Contains(got["cause"], "hunter2") {
		t.Fatalf("breaker event attributes %v", got)
	}
	for _, kv := range evs[1].Attributes {
		if kv.Key == "event" {
			t.Fatalf("retry event keeps an attribute named event: %v", evs[1].Attributes)
		}
	}
}
