package upstream_test

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap/upstream"
)

// TestOpenWindowGrowsToItsCapWithEqualJitter: each opening's window is
// initial·2ⁿ⁻¹ capped at max, spread over [half, all] of it (the shared
// backoff with Equal jitter), and never longer than max however long the
// outage lasts — with the defaults too, whose cap is 10s; a Backoff given
// without a MaxBackoff does not grow.
func TestOpenWindowGrowsToItsCapWithEqualJitter(t *testing.T) {
	for _, tc := range []struct {
		name         string
		opts         []upstream.Option
		initial, max time.Duration
	}{
		{"defaults", nil, time.Second, 10 * time.Second},
		{"configured", []upstream.Option{upstream.WithPolicy(upstream.Policy{Backoff: 50 * time.Millisecond, MaxBackoff: 300 * time.Millisecond})},
			50 * time.Millisecond, 300 * time.Millisecond},
		// A Backoff without MaxBackoff is a fixed window, as the old
		// WithBackoff(x, 0) was; not one growing to the 10s default.
		{"backoff without a maximum", []upstream.Option{upstream.WithPolicy(upstream.Policy{Backoff: 50 * time.Millisecond})},
			50 * time.Millisecond, 50 * time.Millisecond},
		{"maximum below backoff", []upstream.Option{upstream.WithPolicy(upstream.Policy{Backoff: 50 * time.Millisecond, MaxBackoff: 20 * time.Millisecond})},
			50 * time.Millisecond, 50 * time.Millisecond},
		{"maximum without backoff", []upstream.Option{upstream.WithPolicy(upstream.Policy{MaxBackoff: 4 * time.Second})},
			time.Second, 4 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := newClock()
			d := &dialer{}
			d.down.Store(true)
			h := upstream.New("api", d.dial, append(tc.opts, upstream.WithClock(clk.now))...)
			defer h.Close()
			for n := 1; n <= 20; n++ { // the first dial, then 19 failed probes
				if _, err := h.Get(t.Context()); !errors.Is(err, upstream.ErrDial) {
					t.Fatalf("opening %d: %v", n, err)
				}
				nominal := min(tc.initial<<(n-1), tc.max)
				st := h.Stats()
				if st.State != "open" || st.RetryAfter < nominal/2 || st.RetryAfter > nominal {
					t.Fatalf("opening %d: %v for %v, want within [%v, %v]", n, st.State, st.RetryAfter, nominal/2, nominal)
				}
				clk.advance(st.RetryAfter)
			}
		})
	}
}

// TestRecoveredUpstreamIsCalledWithinTheConfiguredMaximum: after a long
// outage of a real upstream, calls go through again at most max (of
// WithBackoff) after it is back, and not before the window is over.
func TestRecoveredUpstreamIsCalledWithinTheConfiguredMaximum(t *testing.T) {
	const max = 800 * time.Millisecond
	var hits, dials atomic.Int64
	api := testserver.StartRestartable(t, weatherAPI(&hits))
	base := "http://" + api.Addr
	clk := newClock()
	h := httpHolder(base, &dials, upstream.WithClock(clk.now), upstream.WithPolicy(upstream.Policy{Backoff: 100 * time.Millisecond, MaxBackoff: max}))
	defer h.Close()
	call := func() error {
		return h.Do(t.Context(), func(ctx context.Context, c *http.Client) error { return getForecast(ctx, c, base) })
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
	api.Stop()
	for range 30 { // a long outage: the window reaches its cap
		_ = call()
		clk.advance(h.Stats().RetryAfter)
	}
	_ = call() // a failed probe: a full window starts
	if err := api.Restart(); err != nil {
		t.Fatal(err)
	}
	st := h.Stats()
	if st.State != "open" || st.RetryAfter < max/2 || st.RetryAfter > max {
		t.Fatalf("after a long outage: %+v, want open for at most %v", st, max)
	}
	clk.advance(st.RetryAfter - time.Millisecond)
	if err := call(); !errors.Is(err, upstream.ErrOpen) {
		t.Fatalf("call before the window is over: %v", err)
	}
	clk.advance(time.Millisecond)
	if err := call(); err != nil {
		t.Fatalf("call at the end of the window: %v", err)
	}
	if st := h.Stats(); st.State != "closed" {
		t.Fatalf("after the probe: %+v", st)
	}
}

func getForecast(ctx context.Context, c *http.Client, base string) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/forecast", nil)
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	return resp.Body.Close()
}
