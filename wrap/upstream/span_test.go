package upstream_test

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
	"github.com/mcpwrap/mcpwrap/wrap/upstream"
)

// TestBreakerChangesLandOnTheCallingSpanOnce: through a real wrapped tool
// call, each breaker change is one span event on the span of the call that
// caused it — the opening on the call that found the upstream down
// (reported by Lease.Done), the half-open probe and the closing on the
// call after the window.
func TestBreakerChangesLandOnTheCallingSpanOnce(t *testing.T) {
	tel := obstest.Record(t, obs.WithoutMetrics(), obs.WithLogger(nil))
	spans, ob := tel.Spans, tel.Obs

	var hits, dials atomic.Int64
	api := testserver.StartRestartable(t, weatherAPI(&hits))
	base := "http://" + api.Addr
	clk := newClock()
	h := httpHolder(base, &dials, upstream.WithClock(clk.now), upstream.WithPolicy(upstream.Policy{Threshold: 1}),
		upstream.WithEvents(ob.UpstreamEvent))
	defer h.Close()
	s := server.NewMCPServer("weather", "1.0.0")
	s.AddTools(mcpgo.Tool(wrap.New(), mcp.NewTool("fetch"), func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		lease, err := h.Get(ctx)
		if err != nil {
			return nil, err
		}
		if err := lease.Done(ctx, getForecast(ctx, lease.Client, base)); err != nil {
			return nil, err
		}
		return mcp.NewToolResultText("ok"), nil
	}, obstest.WithObserver(ob)))
	conn := serveMCP(t, s)
	call := func(wantError bool) {
		t.Helper()
		res, err := conn.Call(t.Context(), "fetch", nil)
		if err != nil || res.IsError != wantError {
			t.Fatalf("call: %v %+v", err, res)
		}
	}

	call(false) // dials
	api.Stop()
	call(true) // refused: broken, the breaker opens
	call(true) // fails fast: no change
	if err := api.Restart(); err != nil {
		t.Fatal(err)
	}
	clk.advance(h.Stats().RetryAfter)
	call(false) // the probe: half open, then closed

	var got [][]string
	for _, sp := range spans.Ended() {
		if sp.Name() != "tools/call fetch" {
			continue
		}
		var changes []string
		for _, e := range sp.Events() {
			for _, kv := range e.Attributes {
				if kv.Key == "event" {
					t.Errorf("event %s has an attribute \"event\" (%s) that shadows its name", e.Name, kv.Value.AsString())
				}
			}
			if to := breakerTo(e); to != "" {
				changes = append(changes, to)
			}
		}
		got = append(got, changes)
	}
	want := [][]string{nil, {"open"}, nil, {"half_open", "closed"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("breaker changes by call span: %q, want %q", got, want)
	}
}

// breakerTo returns the state a breaker event moved to, or "" for another
// event. It counts every event that says so, whatever its name, so a change
// added twice under two names is seen twice.
func breakerTo(e sdktrace.Event) string {
	for _, kv := range e.Attributes {
		if k := string(kv.Key); k == "to" || strings.HasSuffix(k, ".to") {
			return kv.Value.AsString()
		}
	}
	if e.Name == "upstream.breaker" || strings.Contains(e.Name, "breaker") {
		return "?"
	}
	return ""
}
