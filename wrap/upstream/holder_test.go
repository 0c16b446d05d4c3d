package upstream_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/wrap/upstream"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// clock is a settable time source for the breaker's open window.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) advance(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// events records what a Holder reports.
type events struct {
	mu    sync.Mutex
	names []string
}

func (e *events) add(_ context.Context, name string, attrs ...slog.Attr) {
	for _, a := range attrs {
		if a.Key == "to" {
			name += ":" + a.Value.String()
		}
	}
	e.mu.Lock()
	e.names = append(e.names, name)
	e.mu.Unlock()
}

func (e *events) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.names, " ")
}

// fakeClient stands for any client type.
type fakeClient struct {
	gen    int
	closed atomic.Bool
}

// dialer hands out fakeClients and fails while down is set.
type dialer struct {
	down  atomic.Bool
	n     atomic.Int32
	gate  chan struct{} // if not nil, dials wait for it
	calls atomic.Int32
}

func (d *dialer) dial(ctx context.Context) (*fakeClient, error) {
	d.calls.Add(1)
	if d.gate != nil {
		select {
		case <-d.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if d.down.Load() {
		return nil, fmt.Errorf("dial: %w", refusedErr)
	}
	return &fakeClient{gen: int(d.n.Add(1))}, nil
}

// refusedErr is classified as Unavailable, like a refused connection.
var refusedErr = errs.New(errs.Unavailable, "connection refused")

func closeFake(c *fakeClient) error { c.closed.Store(true); return nil }

func TestConcurrentCallersShareOneDial(t *testing.T) {
	d := &dialer{gate: make(chan struct{})}
	h := upstream.New("api", d.dial, upstream.WithClose(closeFake))
	defer h.Close()
	var wg, waiting sync.WaitGroup
	got := make(chan *fakeClient, 64)
	waiting.Add(64)
	for range 64 {
		wg.Go(func() {
			l, err := h.Get(&waitingCtx{Context: t.Context(), waiting: &waiting})
			if err != nil {
				t.Error(err)
				return
			}
			got <- l.Client
		})
	}
	// The dial cannot finish before the gate opens, so a caller asking for
	// its ctx's Done channel is one waiting for the dial: all 64 wait for
	// it before it may end.
	waiting.Wait()
	close(d.gate)
	wg.Wait()
	close(got)
	for c := range got {
		if c.gen != 1 {
			t.Fatalf("a caller got generation %d", c.gen)
		}
	}
	if n := d.calls.Load(); n != 1 {
		t.Fatalf("64 concurrent callers made %d dials, want 1", n)
	}
}

// waitingCtx tells, once, that a caller has begun waiting on it: Get
// watches its caller's ctx only while it waits for a dial in flight.
type waitingCtx struct {
	context.Context
	once    sync.Once
	waiting *sync.WaitGroup
}

func (c *waitingCtx) Done() <-chan struct{} {
	c.once.Do(c.waiting.Done)
	return c.Context.Done()
}

func TestBrokenClientIsClosedAndRedialledOnce(t *testing.T) {
	d := &dialer{}
	var ev events
	h := upstream.New("api", d.dial, upstream.WithClose(closeFake), upstream.WithEvents(ev.add))
	defer h.Close()
	var leases []upstream.Lease[*fakeClient]
	for range 64 {
		l, err := h.Get(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		leases = append(leases, l)
	}
	first := leases[0].Client
	// 64 callers fail on the same client: one failure, not 64.
	for _, l := range leases {
		err := l.Done(t.Context(), fmt.Errorf("read: %w", refusedErr))
		if errs.CodeOf(err) != errs.Unavailable || !strings.Contains(errs.From(err).Message(), "") {
			t.Fatalf("Done returned %v", err)
		}
	}
	st := h.Stats()
	if st.Broken != 1 || st.State != "closed" {
		t.Fatalf("stats after 64 echoes of one failure: %+v", st)
	}
	waitFor(t, first.closed.Load, "the broken client was not closed")
	l, err := h.Get(t.Context())
	if err != nil || l.Client.gen != 2 {
		t.Fatalf("Get after a break: %v, gen %v", err, l.Client)
	}
	if err := l.Done(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if got := ev.String(); got != "upstream.dial upstream.broken upstream.dial" {
		t.Fatalf("events: %s", got)
	}
}

func TestBreakerOpensFailsFastProbesAndCloses(t *testing.T) {
	clk := newClock()
	d := &dialer{}
	var ev events
	h := upstream.New("weather-api", d.dial, upstream.WithClock(clk.now),
		upstream.WithPolicy(upstream.Policy{Backoff: time.Second, MaxBackoff: 8 * time.Second}), upstream.WithEvents(ev.add))
	defer h.Close()

	d.down.Store(true)
	_, err := h.Get(t.Context())
	e := errs.From(err)
	if e.Code() != errs.Unavailable || !errors.Is(err, upstream.ErrDial) || e.RetryAfter() <= 0 || e.RetryAfter() > time.Second {
		t.Fatalf("failed dial: %v (retry after %v)", err, e.RetryAfter())
	}
	if !strings.Contains(e.Message(), "could not connect to upstream weather-api") {
		t.Fatalf("message %q does not name the upstream", e.Message())
	}
	for range 10 {
		_, err = h.Get(t.Context())
		if !errors.Is(err, upstream.ErrOpen) {
			t.Fatalf("want a fail-fast while open, got %v", err)
		}
	}
	res := errmap.ToResult(err, errmap.Call{Tool: "get_forecast"})
	if text := errs.From(err).Message(); text != "upstream weather-api is unavailable" {
		t.Fatalf("message %q", text)
	}
	if info := res.Info; info.RetryAfterSeconds != 1 || !info.Retryable {
		t.Fatalf("info %+v", info)
	}
	if n := d.calls.Load(); n != 1 {
		t.Fatalf("open breaker dialled: %d dials", n)
	}

	// The window passes; the upstream is still down: the probe fails and
	// the next window is longer.
	clk.advance(time.Second)
	if _, err := h.Get(t.Context()); !errors.Is(err, upstream.ErrDial) {
		t.Fatalf("probe: %v", err)
	}
	if st := h.Stats(); st.State != "open" || st.RetryAfter < time.Second || st.RetryAfter > 2*time.Second {
		t.Fatalf("after a failed probe: %+v", st)
	}

	// Back up: one probe goes through, the others still fail fast until it
	// reports.
	d.down.Store(false)
	clk.advance(2 * time.Second)
	probe, err := h.Get(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Get(t.Context()); !errors.Is(err, upstream.ErrOpen) {
		t.Fatalf("second caller during the probe: %v", err)
	}
	if err := probe.Done(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Get(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := "upstream.dial_failed upstream.breaker:open upstream.breaker:half_open upstream.dial_failed upstream.breaker:open " +
		"upstream.breaker:half_open upstream.dial upstream.breaker:closed"
	if got := ev.String(); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
}

func TestThresholdConsecutiveBrokenClientsOpen(t *testing.T) {
	clk := newClock()
	d := &dialer{}
	h := upstream.New("api", d.dial, upstream.WithClock(clk.now), upstream.WithPolicy(upstream.Policy{Threshold: 3}))
	defer h.Close()
	unavailable := errs.FromStatus("api", 503, nil)
	for i := range 3 {
		l, err := h.Get(t.Context())
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		_ = l.Done(t.Context(), unavailable)
	}
	if _, err := h.Get(t.Context()); !errors.Is(err, upstream.ErrOpen) {
		t.Fatalf("after 3 broken clients: %v", err)
	}
	if st := h.Stats(); st.Dials != 3 || st.Broken != 3 {
		t.Fatalf("stats %+v", st)
	}
}

func TestAnswersThatAreNotOutagesKeepTheClient(t *testing.T) {
	d := &dialer{}
	h := upstream.New("api", d.dial)
	defer h.Close()
	for _, err := range []error{
		nil,
		errs.FromStatus("api", 404, nil),
		errs.FromStatus("api", 429, nil),
		errs.New(errs.InvalidArgument, "bad city"),
		context.Canceled,
	} {
		l, gerr := h.Get(t.Context())
		if gerr != nil {
			t.Fatal(gerr)
		}
		if got := l.Done(t.Context(), err); got != err {
			t.Fatalf("Done(%v) changed the error to %v", err, got)
		}
	}
	if st := h.Stats(); st.Dials != 1 || st.Broken != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestCloseStopsADialInFlight(t *testing.T) {
	d := &dialer{gate: make(chan struct{})} // never opened: the dial waits for its ctx
	h := upstream.New("api", d.dial, upstream.WithPolicy(upstream.Policy{DialTimeout: time.Minute}))
	errc := make(chan error, 1)
	go func() {
		_, err := h.Get(context.Background())
		errc <- err
	}()
	waitFor(t, func() bool { return d.calls.Load() == 1 }, "dial never started")
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; errs.CodeOf(err) != errs.Unavailable {
		t.Fatalf("Get during Close: %v", err)
	}
	if _, err := h.Get(t.Context()); !errors.Is(err, upstream.ErrClosed) {
		t.Fatalf("Get after Close: %v", err)
	}
}

func TestCallerDeadlineEndsTheWaitNotTheDial(t *testing.T) {
	d := &dialer{gate: make(chan struct{})}
	h := upstream.New("api", d.dial)
	defer h.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if _, err := h.Get(ctx); errs.CodeOf(err) != errs.Timeout || !errors.Is(err, errs.ErrNotSent) ||
		!errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("want a timeout before anything was sent, got %v", err)
	}
	close(d.gate)
	waitFor(t, func() bool { return h.Stats().Dials == 1 }, "the shared dial was cancelled with its first caller")
}

func TestWrongClientTypePanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "WithClose") {
			t.Fatalf("recover() = %v", r)
		}
	}()
	upstream.New("api", (&dialer{}).dial, upstream.WithClose(func(string) error { return nil }))
}

func waitFor(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal(msg)
}

// BenchmarkGet measures the fast path: a healthy client, no lock.
func BenchmarkGet(b *testing.B) {
	h := upstream.New("api", (&dialer{}).dial)
	defer h.Close()
	ctx := context.Background()
	if _, err := h.Get(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.Run("get", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h.Get(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("get_done", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			l, err := h.Get(ctx)
			if err != nil {
				b.Fatal(err)
			}
			if err := l.Done(ctx, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("get_parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				l, _ := h.Get(ctx)
				_ = l.Done(ctx, nil)
			}
		})
	})
}

func TestGetOnAHealthyClientAllocatesNothing(t *testing.T) {
	h := upstream.New("api", (&dialer{}).dial)
	defer h.Close()
	ctx := context.Background()
	allocs := testing.AllocsPerRun(1000, func() {
		l, err := h.Get(ctx)
		if err != nil {
			t.Fatal(err)
		}
		_ = l.Done(ctx, nil)
	})
	if allocs != 0 {
		t.Fatalf("Get+Done allocates %.1f times", allocs)
	}
}

// TestErrorsNameTheUpstreamInErrsWords: the holder's errors name the
// upstream in the sentence errs.FromUpstream makes for the cause, for a
// failed dial and for a failure reported to Done alike, and the dial's
// error still says nothing was sent.
func TestErrorsNameTheUpstreamInErrsWords(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + ln.Addr().String() + "/"
	_ = ln.Close()
	dial := func(ctx context.Context) (*http.Client, error) {
		c := &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, refused, nil)
		_, err := c.Do(req)
		return c, err
	}
	h := upstream.New("weather-api", dial)
	defer h.Close()
	_, err = h.Get(t.Context())
	if msg := errs.From(err).Message(); msg != "upstream weather-api refused the connection" ||
		!errors.Is(err, upstream.ErrDial) || !errors.Is(err, errs.ErrNotSent) {
		t.Fatalf("failed dial: %v (message %q)", err, msg)
	}

	d := &dialer{}
	h2 := upstream.New("weather-api", d.dial)
	defer h2.Close()
	l, err := h2.Get(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	err = l.Done(t.Context(), &net.DNSError{Err: "no such host", Name: "api.invalid", IsNotFound: true})
	if e := errs.From(err); e.Code() != errs.Unavailable || e.Message() != "the host name of upstream weather-api could not be resolved" {
		t.Fatalf("Done: %v (message %q)", err, e.Message())
	}
}
