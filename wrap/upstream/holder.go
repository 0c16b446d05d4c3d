package upstream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/mcpwrap/mcpwrap/errs"
)

// notSent is a cause for failures that happened before anything was sent to
// the upstream: the operation the tool meant to perform cannot have
// happened. It matches errs.ErrNotSent, which wrap reads to tell the model so.
type notSent string

func (e notSent) Error() string { return string(e) }

// Is matches errs.ErrNotSent: nothing reached the upstream.
func (notSent) Is(target error) bool { return target == errs.ErrNotSent }

// Causes of the errors Get returns; match them with errors.Is. Each also
// matches errs.ErrNotSent.
var (
	// ErrOpen is the cause when Get fails fast because the breaker is open.
	ErrOpen error = notSent("circuit breaker open")
	// ErrDial is the cause when the dial (or its health check) failed.
	ErrDial error = notSent("dial failed")
	// ErrClosed is the cause when the Holder was closed.
	ErrClosed error = notSent("holder closed")
)

// errNotConnected is the cause when a caller stopped waiting for a dial.
var errNotConnected error = notSent("not connected yet")

// Holder keeps one client of type C to one upstream, reconnecting it after
// transient failures and guarding it with a circuit breaker. Build it with
// New; a Holder is safe for concurrent use.
type Holder[C any] struct {
	name   string
	dial   func(context.Context) (C, error)
	close  func(C) error
	health func(context.Context, C) error
	s      settings
	br     breaker

	cur atomic.Pointer[conn[C]]

	mu     sync.Mutex // guards gen and closed; never held across I/O
	gen    uint64
	closed bool

	sf   singleflight.Group
	bg   sync.WaitGroup // dials and closes in flight
	stop chan struct{}

	dials, failedDials, broken atomic.Int64
}

// conn is one generation of the client.
type conn[C any] struct {
	client C
	gen    uint64
}

// New returns a Holder for the upstream called name (it appears in errors
// the model reads, so make it meaningful: "weather-api"). dial makes a new
// client; it is called lazily, by the first Get, and again after a client is
// marked broken. New panics if WithClose or WithHealth was given a function
// for another client type.
func New[C any](name string, dial func(context.Context) (C, error), opts ...Option) *Holder[C] {
	s := defaults()
	for _, o := range opts {
		if o != nil {
			o.apply(&s)
		}
	}
	h := &Holder[C]{name: name, dial: dial, s: s, stop: make(chan struct{})}
	h.br.init(&s)
	if s.close != nil {
		f, ok := s.close.(func(C) error)
		if !ok {
			panic(fmt.Sprintf("upstream.New(%q): WithClose has type %T, want func(%T) error", name, s.close, *new(C)))
		}
		h.close = f
	}
	if s.health != nil {
		f, ok := s.health.(func(context.Context, C) error)
		if !ok {
			panic(fmt.Sprintf("upstream.New(%q): WithHealth has type %T, want func(context.Context, %T) error", name, s.health, *new(C)))
		}
		h.health = f
	}
	return h
}

// Name returns the upstream's name.
func (h *Holder[C]) Name() string { return h.name }

// Lease is one use of the client: read Client, use it, then call Done with
// the call's ctx and its outcome. A Lease is a value; it is not shared
// between calls.
type Lease[C any] struct {
	// Client is the client to use for this call.
	Client C
	h      *Holder[C]
	c      *conn[C]
	probe  bool
}

// Get returns the current client, dialling one if there is none. It fails
// fast, with an errs.Unavailable error naming the upstream and carrying a
// RetryAfter, while the breaker is open or another caller is probing. On a
// healthy client it takes no lock and allocates nothing. Events of the dial
// it triggers or the breaker change it causes are reported with ctx.
func (h *Holder[C]) Get(ctx context.Context) (Lease[C], error) {
	if c := h.cur.Load(); c != nil && h.br.closed() {
		return Lease[C]{Client: c.client, h: h, c: c}, nil
	}
	return h.getSlow(ctx)
}

// Do gets the client, runs fn with it and reports fn's error: Get and Done
// in one call. It returns what Done returns.
func (h *Holder[C]) Do(ctx context.Context, fn func(context.Context, C) error) error {
	l, err := h.Get(ctx)
	if err != nil {
		return err
	}
	return l.Done(ctx, fn(ctx, l.Client))
}

func (h *Holder[C]) getSlow(ctx context.Context) (Lease[C], error) {
	if h.isClosed() {
		return Lease[C]{}, h.closedError()
	}
	probe, wait, tr := h.br.admit()
	h.transitioned(ctx, tr)
	if wait > 0 {
		return Lease[C]{}, h.openError(wait)
	}
	c := h.cur.Load()
	if c == nil {
		var err error
		if c, err = h.redial(ctx); err != nil {
			if probe {
				h.br.releaseProbe()
			}
			return Lease[C]{}, err
		}
	}
	return Lease[C]{Client: c.client, h: h, c: c, probe: probe}, nil
}

func (h *Holder[C]) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

func (h *Holder[C]) closedError() error {
	return errs.Wrap(errs.Unavailable, ErrClosed, "upstream "+h.name+" is shut down")
}

func (h *Holder[C]) openError(wait time.Duration) error {
	// Rounded up to 10ms so "retry after" reads well and is never early.
	wait = (wait + 10*time.Millisecond - 1).Truncate(10 * time.Millisecond)
	return errs.Wrap(errs.Unavailable, ErrOpen, "upstream "+h.name+" is unavailable", errs.RetryAfter(wait))
}

// redial dials once for all concurrent callers. The dial runs on its own
// deadline; a caller whose context ends stops waiting for it.
func (h *Holder[C]) redial(ctx context.Context) (*conn[C], error) {
	ch := h.sf.DoChan("dial", func() (any, error) { return h.dialOnce(ctx) })
	select {
	case r := <-ch:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.(*conn[C]), nil
	case <-ctx.Done():
		err := ctx.Err()
		return nil, errs.Wrap(errs.CodeOf(err), fmt.Errorf("%w: %w", errNotConnected, err),
			"gave up waiting for upstream "+h.name+" to connect")
	}
}

func (h *Holder[C]) dialOnce(ctx context.Context) (any, error) {
	if c := h.cur.Load(); c != nil {
		return c, nil
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, h.closedError()
	}
	h.bg.Add(1)
	h.mu.Unlock()
	defer h.bg.Done()

	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.s.dialTimeout)
	defer cancel()
	go func() {
		select {
		case <-h.stop:
			cancel()
		case <-dctx.Done():
		}
	}()
	begin := time.Now()
	c, err := h.connect(dctx)
	if err != nil {
		h.failedDials.Add(1)
		return nil, h.dialFailed(ctx, err)
	}
	cn := h.install(c)
	if cn == nil {
		h.release(c)
		return nil, h.closedError()
	}
	h.dials.Add(1)
	h.emit(ctx, slog.LevelInfo, eventDial, "upstream connected",
		slog.Uint64("generation", cn.gen),
		slog.Float64("duration_ms", float64(time.Since(begin).Microseconds())/1000))
	return cn, nil
}

// install makes c, just dialled, the current connection, of the next
// generation; nil when the Holder was closed meanwhile.
func (h *Holder[C]) install(c C) *conn[C] {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.gen++
	cn := &conn[C]{client: c, gen: h.gen}
	h.cur.Store(cn)
	return cn
}

// connect dials and runs the health check on its own, shorter deadline: an
// upstream that accepts connections but never answers fails the check in
// HealthTimeout, not in the whole dial timeout.
func (h *Holder[C]) connect(ctx context.Context) (C, error) {
	c, err := h.dial(ctx)
	if err != nil || h.health == nil {
		return c, err
	}
	hctx, cancel := context.WithTimeout(ctx, h.s.healthTimeout)
	defer cancel()
	if err := h.health(hctx, c); err != nil {
		h.release(c)
		var zero C
		return zero, err
	}
	return c, nil
}

// dialFailed opens the breaker (a failed dial is the surest sign the
// upstream is down) and builds the error the waiting callers get.
func (h *Holder[C]) dialFailed(ctx context.Context, err error) error {
	err = h.marked(err)
	tr, wait := h.br.trip(err)
	h.emit(ctx, slog.LevelWarn, eventDialFailed, "upstream dial failed",
		slog.String("code", errs.CodeOf(err).String()), slog.String("cause", err.Error()))
	h.transitioned(ctx, tr)
	e := errs.FromUpstream(h.name, err)
	code, msg := e.Code(), dialMessage(h.name, err, e)
	if code == errs.Timeout || code == errs.Canceled {
		// The dial ran on its own deadline: to the caller the upstream is
		// simply unavailable.
		code = errs.Unavailable
	}
	return errs.Wrap(code, fmt.Errorf("%w: %w", ErrDial, err), msg, errs.RetryAfter(wait))
}

// dialMessage is what a failed dial of upstream name tells the model: the
// upstream's public message, if it has one, after what failed.
func dialMessage(name string, err error, e *errs.Error) string {
	code, msg := e.Code(), e.Message()
	var own *errs.Error
	switch {
	case code == errs.Canceled || !code.Public() || msg == "":
		return "could not connect to upstream " + name
	case errors.As(err, &own):
		return "could not connect to upstream " + name + ": " + msg
	}
	return msg
}

// Done reports the outcome of the call made with the lease and returns err,
// as an error whose message names the upstream when it was a transient
// failure that errs had to classify (see errs.FromUpstream). Pass the
// call's ctx: a broken client or a breaker change is reported with it, so
// an EventFunc puts it on the calling tool's span.
//
// A transient failure (errs.CodeOf is Unavailable or Timeout) marks the
// lease's client broken, unless a newer one already replaced it. Toward the
// breaker's threshold, a broken connection counts once per client (64
// callers failing on one reset connection are one failure), a timeout
// counts every time (64 callers waiting on an upstream that accepts but
// never answers are 64). Anything else, including a nil error, an HTTP 404
// or a rate limit, shows that the upstream answered and ends the run of
// failures; a cancelled call says nothing either way.
func (l Lease[C]) Done(ctx context.Context, err error) error {
	h := l.h
	if h == nil {
		return err
	}
	code := errs.Internal
	if err != nil {
		err = h.marked(err)
		code = errs.CodeOf(err)
	}
	switch {
	case err != nil && (code == errs.Unavailable || code == errs.Timeout):
		return h.failed(ctx, l, err, code)
	case code == errs.Canceled:
		if l.probe {
			h.br.releaseProbe()
		}
	case l.probe || h.br.fails.Load() != 0:
		h.transitioned(ctx, h.br.succeeded(l.probe))
	}
	return err
}

// marked passes err through WithErrors' function.
func (h *Holder[C]) marked(err error) error {
	if h.s.mark == nil || err == nil {
		return err
	}
	return h.s.mark(err)
}

func (h *Holder[C]) failed(ctx context.Context, l Lease[C], err error, code errs.Code) error {
	// The first failure on a client marks it broken; later ones on the
	// same, already replaced, client are echoes of it.
	broke := h.cur.CompareAndSwap(l.c, nil)
	tr := h.br.failed(l.probe, broke || code == errs.Timeout, err)
	if broke {
		h.broken.Add(1)
		h.release(l.c.client)
		h.emit(ctx, slog.LevelWarn, eventBroken, "upstream client broken; reconnecting",
			slog.Uint64("generation", l.c.gen),
			slog.String("code", code.String()),
			slog.String("cause", err.Error()))
	}
	h.transitioned(ctx, tr)
	var own *errs.Error
	if errors.As(err, &own) {
		return err // already classified, with its own message
	}
	return errs.FromUpstream(h.name, err)
}

// transitioned acts on a breaker change and reports it, once. Opening drops
// the current client, so that the probe after the open window dials afresh
// and passes the health check (on its short deadline) before a real call
// is let through.
func (h *Holder[C]) transitioned(ctx context.Context, tr transition) {
	if !tr.changed() {
		return
	}
	if tr.to == stOpen {
		if c := h.cur.Swap(nil); c != nil {
			h.release(c.client)
		}
	}
	h.emitTransition(ctx, tr)
}

// release closes a client in the background, or at once after Close.
func (h *Holder[C]) release(c C) {
	if h.close == nil {
		return
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		_ = h.close(c)
		return
	}
	h.bg.Add(1)
	h.mu.Unlock()
	go func() {
		defer h.bg.Done()
		_ = h.close(c)
	}()
}

// Stats is a snapshot of a Holder, for tests, health pages and metrics.
type Stats struct {
	// State is the breaker's state: "closed" (calls go through), "open"
	// (calls fail fast until the open window ends) or "half_open" (one
	// probe call is let through; the others fail fast).
	State string
	// Dials counts successful dials (the first connect and each reconnect).
	Dials int64
	// FailedDials counts dials or health checks that failed.
	FailedDials int64
	// Broken counts clients marked broken.
	Broken int64
	// RetryAfter is how long the breaker stays open; 0 unless open.
	RetryAfter time.Duration
}

// Stats returns a snapshot of the counters and the breaker.
func (h *Holder[C]) Stats() Stats {
	var st Stats
	var state brState
	state, st.RetryAfter = h.br.snapshot()
	st.State = state.String()
	st.Dials, st.FailedDials, st.Broken = h.dials.Load(), h.failedDials.Load(), h.broken.Load()
	return st
}

// Close closes the current client, stops dials in flight and waits for
// background closes to finish. Get fails after Close.
func (h *Holder[C]) Close() error {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	close(h.stop)
	c := h.cur.Swap(nil)
	h.mu.Unlock()
	var err error
	if c != nil && h.close != nil {
		err = h.close(c.client)
	}
	h.bg.Wait()
	return err
}
