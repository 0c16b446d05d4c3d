package upstream

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/backoff"
)

// brState is the breaker's state.
type brState int32

// The breaker's states.
const (
	// stClosed: calls go through; the normal state.
	stClosed brState = iota
	// stOpen: calls fail fast until the open window ends.
	stOpen
	// stHalfOpen: one probe call is let through; the others fail fast.
	stHalfOpen
)

// String returns "closed", "open" or "half_open" (Stats.State).
func (s brState) String() string {
	switch s {
	case stClosed:
		return "closed"
	case stOpen:
		return "open"
	case stHalfOpen:
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

	state atomic.Int32 // brState; written under mu
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
	from, to brState
	window   time.Duration // the open window, when to is stOpen
	cause    error
}

func (t transition) changed() bool { return t.from != t.to }

// closed reports whether calls go through without asking: one atomic load.
func (b *breaker) closed() bool { return brState(b.state.Load()) == stClosed }

// admit decides whether a caller may go on: always while closed; as the one
// probe once the open window is over; otherwise not, and wait says how long
// until it may ask again.
func (b *breaker) admit() (probe bool, wait time.Duration, tr transition) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	switch brState(b.state.Load()) {
	case stClosed:
		return false, 0, tr
	case stOpen:
		if now.Before(b.openUntil) {
			return false, b.openUntil.Sub(now), tr
		}
		tr = b.setLocked(stHalfOpen, now, nil)
	case stHalfOpen:
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
		if brState(b.state.Load()) == stHalfOpen {
			tr = b.setLocked(stClosed, time.Time{}, nil)
		}
	}
	if brState(b.state.Load()) == stClosed {
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
		if brState(b.state.Load()) == stHalfOpen {
			return b.setLocked(stOpen, b.now(), cause)
		}
	case counts && brState(b.state.Load()) == stClosed:
		if int(b.fails.Add(1)) >= b.threshold {
			return b.setLocked(stOpen, b.now(), cause)
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
	if brState(b.state.Load()) != stOpen {
		tr = b.setLocked(stOpen, now, cause)
	}
	b.probing = false
	return tr, b.openUntil.Sub(now)
}

// setLocked changes the state; opening starts a new open window, each one
// longer than the last (the one backoff of mcpwrap, with equal jitter so
// probes from many replicas spread out but never come at once).
func (b *breaker) setLocked(to brState, now time.Time, cause error) transition {
	tr := transition{from: brState(b.state.Load()), to: to, cause: cause}
	switch to {
	case stOpen:
		b.opens++
		tr.window = b.window.Delay(b.opens)
		b.openUntil = now.Add(tr.window)
	case stClosed:
		b.opens = 0
		b.fails.Store(0)
	}
	b.state.Store(int32(to))
	return tr
}

// snapshot returns the state and, while open, the time left in the window.
func (b *breaker) snapshot() (brState, time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := brState(b.state.Load())
	if st != stOpen {
		return st, 0
	}
	return st, max(b.openUntil.Sub(b.now()), 0)
}
