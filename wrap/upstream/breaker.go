package upstream

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/backoff"
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

// breaker is the circuit breaker of one Holder. It knows nothing of
// clients: the Holder tells it what happened and emits the transitions it
// returns, after the breaker's lock is released.
type breaker struct {
	threshold int
	window    backoff.Exponential // the open window, by number of openings
	probeFor  time.Duration       // how long a probe holds the half-open state
	now       func() time.Time

	state atomic.Int32 // State; written under mu
	fails atomic.Int32 // consecutive failures while closed; written under mu

	mu        sync.Mutex // guards what follows; never held across I/O
	opens     int        // openings since the breaker last closed
	openUntil time.Time
	probing   bool
	probeAt   time.Time
}

// init sets the breaker's parameters; it lives inside its Holder, so that
// Get reads its state without chasing a pointer.
func (b *breaker) init(s *settings) {
	b.threshold = s.threshold
	b.window = backoff.Exponential{Initial: s.openBase, Max: s.openMax, Jitter: backoff.Equal}
	b.probeFor = s.dialTimeout
	b.now = s.now
}

// transition is a breaker state change; the zero value is none.
type transition struct {
	from, to State
	window   time.Duration // the open window, when to is Open
	cause    error
}

func (t transition) changed() bool { return t.from != t.to }

// closed reports whether calls go through without asking: one atomic load.
func (b *breaker) closed() bool { return State(b.state.Load()) == Closed }

// healthy reports whether a success has nothing to reset.
func (b *breaker) healthy() bool { return b.closed() && b.fails.Load() == 0 }

// admit decides whether a caller may go on: always while closed; as the one
// probe once the open window is over; otherwise not, and wait says how long
// until it may ask again.
func (b *breaker) admit() (probe bool, wait time.Duration, tr transition) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	switch State(b.state.Load()) {
	case Closed:
		return false, 0, tr
	case Open:
		if now.Before(b.openUntil) {
			return false, b.openUntil.Sub(now), tr
		}
		tr = b.setLocked(HalfOpen, now, nil)
	case HalfOpen:
		if b.probing && now.Sub(b.probeAt) < b.probeFor {
			return false, b.window.Initial, tr
		}
	}
	b.probing, b.probeAt = true, now
	return true, 0, tr
}

// releaseProbe lets another caller probe: this one learned nothing.
func (b *breaker) releaseProbe() {
	b.mu.Lock()
	b.probing = false
	b.mu.Unlock()
}

// succeeded records that the upstream answered: a probe's answer closes
// the breaker, any answer while closed ends the run of failures.
func (b *breaker) succeeded(probe bool) transition {
	b.mu.Lock()
	defer b.mu.Unlock()
	var tr transition
	if probe {
		b.probing = false
		if State(b.state.Load()) == HalfOpen {
			tr = b.setLocked(Closed, time.Time{}, nil)
		}
	}
	if State(b.state.Load()) == Closed {
		b.fails.Store(0)
	}
	return tr
}

// failed records a call that found the upstream down or silent. A failed
// probe reopens the breaker; while closed, a failure that counts (see
// Lease.Done) adds to the run, and Threshold of them in a row open it.
func (b *breaker) failed(probe, counts bool, cause error) transition {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case probe:
		b.probing = false
		if State(b.state.Load()) == HalfOpen {
			return b.setLocked(Open, b.now(), cause)
		}
	case counts && State(b.state.Load()) == Closed:
		if int(b.fails.Add(1)) >= b.threshold {
			return b.setLocked(Open, b.now(), cause)
		}
	}
	return transition{}
}

// trip opens the breaker at once, unless it is open already (a failed dial
// is the surest sign the upstream is down), and returns how long it stays
// open.
func (b *breaker) trip(cause error) (transition, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	var tr transition
	if State(b.state.Load()) != Open {
		tr = b.setLocked(Open, now, cause)
	}
	b.probing = false
	return tr, b.openUntil.Sub(now)
}

// setLocked changes the state; opening starts a new open window, each one
// longer than the last (the one backoff of mcpwrap, with equal jitter so
// probes from many replicas spread out but never come at once).
func (b *breaker) setLocked(to State, now time.Time, cause error) transition {
	tr := transition{from: State(b.state.Load()), to: to, cause: cause}
	switch to {
	case Open:
		b.opens++
		tr.window = b.window.Delay(b.opens)
		b.openUntil = now.Add(tr.window)
	case Closed:
		b.opens = 0
		b.fails.Store(0)
	}
	b.state.Store(int32(to))
	return tr
}

// snapshot returns the state and, while open, the time left in the window.
func (b *breaker) snapshot() (State, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := State(b.state.Load())
	if st != Open {
		return st, 0
	}
	return st, max(b.openUntil.Sub(b.now()), 0)
}
