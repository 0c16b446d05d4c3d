package callcache

import (
	"sync"
	"time"
)

// Flights are the calls in flight, by key, that identical calls join: the
// first call of a key leads (its handler runs), the others wait for its
// outcome. A flight whose leader was answered before its handler returned
// (a timeout) stays joinable until its handler returns, and its outcome
// stays for the window given to Lead after that, so that a repeat of a
// call that timed out gets that call's answer instead of running it again.
// The flights kept after their end are at most max; it is safe for
// concurrent use.
type Flights[V any] struct {
	max int

	mu      sync.Mutex
	flights map[Key]*Flight[V]
	ended   int // flights kept after their end
}

// Flight is one call in flight.
type Flight[V any] struct {
	done chan struct{}
	// Start is when the leader began; LeaderID is its call id.
	Start    time.Time
	LeaderID string
	// value is the outcome, readable once done is closed; ended is when.
	value V
	ended time.Time
	// keep is how long the outcome stays after its end; 0: not at all.
	keep time.Duration
	// detached is set when the leader was answered without the outcome.
	detached bool
}

// NewFlights returns Flights that keep at most max ended flights.
func NewFlights[V any](max int) *Flights[V] {
	return &Flights[V]{max: max, flights: map[Key]*Flight[V]{}}
}

// Lead returns the flight of k: a new one when lead is true (the caller
// leads, and must call End), else the one in flight or kept, to Wait on.
func (fs *Flights[V]) Lead(k Key, id string, now time.Time) (f *Flight[V], lead bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if f, ok := fs.flights[k]; ok {
		select {
		case <-f.done:
			if now.Sub(f.ended) < f.keep {
				return f, false
			}
			delete(fs.flights, k)
			fs.ended--
		default:
			return f, false
		}
	}
	f = &Flight[V]{done: make(chan struct{}), Start: now, LeaderID: id}
	fs.flights[k] = f
	return f, true
}

// Detach notes that the leader of f was answered before its handler
// returned: f's outcome is kept for keep after End.
func (fs *Flights[V]) Detach(f *Flight[V], keep time.Duration) {
	fs.mu.Lock()
	f.detached, f.keep = true, keep
	fs.mu.Unlock()
}

// Detached reports whether f's leader was answered before its handler
// returned.
func (fs *Flights[V]) Detached(f *Flight[V]) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return f.detached
}

// End records f's outcome v and wakes its joiners; the first End wins. f is
// forgotten at once, or kept for the window Detach gave.
func (fs *Flights[V]) End(k Key, f *Flight[V], v V, now time.Time) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	select {
	case <-f.done:
		return
	default:
	}
	f.value, f.ended = v, now
	close(f.done)
	if fs.flights[k] != f {
		return
	}
	if f.keep > 0 && fs.ended >= fs.max {
		fs.sweep(now)
	}
	if f.keep <= 0 || fs.ended >= fs.max {
		delete(fs.flights, k)
		return
	}
	fs.ended++
}

// sweep forgets the ended flights whose window has passed.
func (fs *Flights[V]) sweep(now time.Time) {
	for k, f := range fs.flights {
		select {
		case <-f.done:
			if now.Sub(f.ended) >= f.keep {
				delete(fs.flights, k)
				fs.ended--
			}
		default:
		}
	}
}

// Done is closed when f's outcome is known.
func (f *Flight[V]) Done() <-chan struct{} { return f.done }

// Value returns f's outcome and when it ended; only after Done is closed.
func (f *Flight[V]) Value() (V, time.Time) { return f.value, f.ended }
