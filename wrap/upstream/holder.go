package upstream

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/mcpwrap/mcpwrap/errs"
)

// State is the breaker's state.
type State int32

// The breaker's states.
const (
	// Closed: calls go through; the normal state.
	Closed State = iota
	// Open: calls fail fast until the open window ends.
	Open
	// HalfOpen: one probe call is let through; the others fail fast.
	HalfOpen
)

// String returns "closed", "open" or "half_open".
func (s State) String() string {
	switch s {
	case Closed:
		return "closed"
	case Open:
		return "open"
	case HalfOpen:
		return "half_open"
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// notSent is a cause for failures that happened before anything was sent to
// the upstream: the operation the tool meant to perform cannot have
// happened. It matches errs.ErrNotSent, which wrap reads to tell the model so.
type notSent string

func (e notSent) Error() string { return string(e) }

// Is matches errs.ErrNotSent: nothing reached the upstream.
func (notSent) Is(target error) bool { return target == errs.ErrNotSent }

// Causes of the errors Get returns; match them with errors.Is.
var (
	// ErrOpen is the cause when Get fails fast because the breaker is open.
	ErrOpen error = notSent("circuit breaker open")
	// ErrDial is the cause when the dial (or its health check) failed.
	ErrDial error = notSent("dial failed")
	// ErrClosed is the cause when the Holder was closed.
	ErrClosed error = notSent("holder closed")
)

// Holder keeps one client of type C to one upstream, reconnecting it after
// transient failures and guarding it with a circuit breaker. Build it with
// New; a Holder is safe for concurrent use.
type Holder[C any] struct {
	name   string
	dial   func(context.Context) (C, error)
	close  func(C) error
	health func(context.Context, C) error
	s      settings

	cur   atomic.Pointer[conn[C]]
	state atomic.Int32 // State; written under mu
	fails atomic.Int32 // consecutive broken clients; written under mu

	mu        sync.Mutex // guards what follows; never held across I/O
	opens     int
	openUntil time.Time
	probing   bool
	probeAt   time.Time
	gen       uint64
	closed    bool

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
// the outcome. A Lease is a value; it is not shared between calls.
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
// healthy client it takes no lock and allocates nothing.
func (h *Holder[C]) Get(ctx context.Context) (Lease[C], error) {
	if c := h.cur.Load(); c != nil && State(h.state.Load()) == Closed {
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
	return l.Done(fn(ctx, l.Client))
}

func (h *Holder[C]) getSlow(ctx context.Context) (Lease[C], error) {
	probe, err := h.admit(ctx)
	if err != nil {
		return Lease[C]{}, err
	}
	c := h.cur.Load()
	if c == nil {
		c, err = h.redial(ctx)
		if err != nil {
			if probe {
				h.releaseProbe()
			}
			return Lease[C]{}, err
		}
	}
	return Lease[C]{Client: c.client, h: h, c: c, probe: probe}, nil
}

// admit decides whether this caller may go on: always when the breaker is
// closed; as the one probe when the open window is over; otherwise not.
func (h *Holder[C]) admit(ctx context.Context) (probe bool, err error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return false, errs.Wrap(errs.Unavailable, ErrClosed, "upstream "+h.name+" is shut down")
	}
	now := h.s.now()
	var tr transition
	switch State(h.state.Load()) {
	case Closed:
		h.mu.Unlock()
		return false, nil
	case Open:
		if now.Before(h.openUntil) {
			wait := h.openUntil.Sub(now)
			h.mu.Unlock()
			return false, h.openError(wait)
		}
		tr = h.setLocked(HalfOpen, now, nil)
	case HalfOpen:
		if h.probing && now.Sub(h.probeAt) < h.s.dialTimeout {
			h.mu.Unlock()
			return false, h.openError(h.s.openBase)
		}
	}
	h.probing, h.probeAt = true, now
	h.mu.Unlock()
	h.emitTransition(ctx, tr)
	return true, nil
}

func (h *Holder[C]) releaseProbe() {
	h.mu.Lock()
	h.probing = false
	h.mu.Unlock()
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
		return nil, errs.Wrap(errs.CodeOf(err), err, "gave up waiting for upstream "+h.name+" to connect")
	}
}

func (h *Holder[C]) dialOnce(ctx context.Context) (any, error) {
	if c := h.cur.Load(); c != nil {
		return c, nil
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, errs.Wrap(errs.Unavailable, ErrClosed, "upstream "+h.name+" is shut down")
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
	c, err := h.dial(dctx)
	if err == nil && h.health != nil {
		if err = h.health(dctx, c); err != nil {
			h.release(c)
		}
	}
	if err != nil {
		h.failedDials.Add(1)
		return nil, h.dialFailed(ctx, err)
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		h.release(c)
		return nil, errs.Wrap(errs.Unavailable, ErrClosed, "upstream "+h.name+" is shut down")
	}
	h.gen++
	cn := &conn[C]{client: c, gen: h.gen}
	h.cur.Store(cn)
	h.mu.Unlock()
	h.dials.Add(1)
	h.emit(ctx, slog.LevelInfo, EventDial, "upstream connected",
		slog.Uint64("generation", cn.gen),
		slog.Float64("duration_ms", float64(time.Since(begin).Microseconds())/1000))
	return cn, nil
}

// dialFailed opens the breaker (a failed dial is the surest sign the
// upstream is down) and builds the error the waiting callers get.
func (h *Holder[C]) dialFailed(ctx context.Context, err error) error {
	h.mu.Lock()
	now := h.s.now()
	var tr transition
	if State(h.state.Load()) != Open {
		tr = h.setLocked(Open, now, err)
	}
	h.probing = false
	wait := h.openUntil.Sub(now)
	h.mu.Unlock()
	h.emit(ctx, slog.LevelWarn, EventDialFailed, "upstream dial failed",
		slog.String("code", errs.CodeOf(err).String()), slog.String("cause", err.Error()))
	h.emitTransition(ctx, tr)
	e := errs.From(err)
	msg := "could not connect to upstream " + h.name
	if e.Code().Public() && e.Message() != "" {
		msg += ": " + strings.Replace(e.Message(), "the upstream service ", "it ", 1)
	}
	code := e.Code()
	if code == errs.Timeout || code == errs.Canceled {
		// The dial ran on its own deadline: to the caller the upstream is
		// simply unavailable.
		code = errs.Unavailable
	}
	return errs.Wrap(code, fmt.Errorf("%w: %w", ErrDial, err), msg, errs.RetryAfter(wait))
}

// Done reports the outcome of the call made with the lease and returns err,
// given a message naming the upstream when it was a transient failure that
// errs had to classify. A transient failure (errs.CodeOf is Unavailable or
// Timeout) marks the lease's client broken, unless a newer one already
// replaced it; anything else, including a nil error, an HTTP 404 or a rate
// limit, shows that the upstream answered.
func (l Lease[C]) Done(err error) error {
	h := l.h
	if h == nil {
		return err
	}
	if err == nil {
		if l.probe || h.fails.Load() != 0 {
			h.succeeded(l)
		}
		return nil
	}
	code := errs.CodeOf(err)
	switch code {
	case errs.Unavailable, errs.Timeout:
		return h.failed(l, err, code)
	case errs.Canceled:
		// The caller gave up: this says nothing about the upstream.
		if l.probe {
			h.releaseProbe()
		}
		return err
	}
	if l.probe || h.fails.Load() != 0 {
		h.succeeded(l)
	}
	return err
}

func (h *Holder[C]) succeeded(l Lease[C]) {
	h.mu.Lock()
	var tr transition
	if l.probe {
		h.probing = false
		if State(h.state.Load()) == HalfOpen {
			tr = h.setLocked(Closed, time.Time{}, nil)
		}
	}
	if State(h.state.Load()) == Closed {
		h.fails.Store(0)
	}
	h.mu.Unlock()
	h.emitTransition(context.Background(), tr)
}

func (h *Holder[C]) failed(l Lease[C], err error, code errs.Code) error {
	h.mu.Lock()
	// Each client generation counts once: the first failure on it marks it
	// broken, later ones on the same (already replaced) client are echoes.
	counted := h.cur.CompareAndSwap(l.c, nil)
	var tr transition
	switch {
	case l.probe:
		h.probing = false
		if State(h.state.Load()) == HalfOpen {
			tr = h.setLocked(Open, h.s.now(), err)
		}
	case counted && State(h.state.Load()) == Closed:
		n := h.fails.Add(1)
		if int(n) >= h.s.threshold {
			tr = h.setLocked(Open, h.s.now(), err)
		}
	}
	h.mu.Unlock()
	if counted {
		h.broken.Add(1)
		h.release(l.c.client)
		h.emit(context.Background(), slog.LevelWarn, EventBroken, "upstream client broken; reconnecting",
			slog.Uint64("generation", l.c.gen),
			slog.String("code", code.String()),
			slog.String("cause", err.Error()))
	}
	h.emitTransition(context.Background(), tr)
	return h.describe(err, code)
}

// describe names the upstream in a classified error's message.
func (h *Holder[C]) describe(err error, code errs.Code) error {
	e := errs.From(err)
	if e.Cause() != err {
		return err // already an *errs.Error with its own message
	}
	msg := e.Message()
	if named := strings.Replace(msg, "the upstream service", "upstream "+h.name, 1); named != msg {
		msg = named
	} else {
		msg = "upstream " + h.name + ": " + msg
	}
	return errs.Wrap(code, err, msg)
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

// transition is a breaker state change, emitted after the lock is released.
type transition struct {
	from, to State
	window   time.Duration
	cause    error
}

// setLocked changes the state; opening starts a new open window.
func (h *Holder[C]) setLocked(to State, now time.Time, cause error) transition {
	tr := transition{from: State(h.state.Load()), to: to, cause: cause}
	switch to {
	case Open:
		h.opens++
		d := h.s.openBase << min(h.opens-1, 30)
		if d <= 0 || d > h.s.openMax {
			d = h.s.openMax
		}
		// Equal jitter: half fixed, half random, so probes from many
		// replicas spread out but the wait never collapses to zero.
		d = d/2 + rand.N(d/2+1)
		h.openUntil = now.Add(d)
		tr.window = d
	case Closed:
		h.opens = 0
		h.fails.Store(0)
	}
	h.state.Store(int32(to))
	return tr
}

func (h *Holder[C]) emitTransition(ctx context.Context, tr transition) {
	if tr.from == tr.to {
		return
	}
	attrs := []slog.Attr{slog.String("from", tr.from.String()), slog.String("to", tr.to.String())}
	level := slog.LevelInfo
	if tr.to == Open {
		level = slog.LevelWarn
		attrs = append(attrs, slog.Float64("retry_after_ms", float64(tr.window.Microseconds())/1000))
	}
	if tr.cause != nil {
		attrs = append(attrs, slog.String("cause", tr.cause.Error()))
	}
	h.emit(ctx, level, EventBreaker, "upstream circuit breaker "+tr.to.String(), attrs...)
}

func (h *Holder[C]) emit(ctx context.Context, level slog.Level, name, msg string, attrs ...slog.Attr) {
	l := h.s.logger
	logOn := l != nil && l.Enabled(ctx, level)
	if !logOn && h.s.events == nil {
		return
	}
	all := make([]slog.Attr, 0, len(attrs)+2)
	all = append(all, slog.String("upstream", h.name), slog.String("event", name))
	all = append(all, attrs...)
	if h.s.events != nil {
		h.s.events(ctx, name, all...)
	}
	if logOn {
		l.LogAttrs(ctx, level, msg, all...)
	}
}

// Stats is a snapshot of a Holder, for tests, health pages and metrics.
type Stats struct {
	// State is the breaker's state.
	State State
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
	h.mu.Lock()
	st := Stats{State: State(h.state.Load())}
	if st.State == Open {
		st.RetryAfter = max(h.openUntil.Sub(h.s.now()), 0)
	}
	h.mu.Unlock()
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
