// Package workers runs jobs on goroutines that are kept for the next job a
// short while, so that a call with a timeout does not pay for a new
// goroutine and for growing its stack. A Pool holds at most maxIdle idle
// goroutines, each retiring after idleTime without work; it is safe for
// concurrent use.
package workers

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Pool runs jobs of type J with Do, which must be set before the first
// Run.
type Pool[J any] struct {
	Do   func(J)
	mu   sync.Mutex
	idle []*worker[J]
}

type worker[J any] struct{ jobs chan J }

const (
	maxIdle  = 64
	idleTime = 250 * time.Millisecond
)

// Run starts j on an idle goroutine, or on a new one.
func (p *Pool[J]) Run(j J) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		w.jobs <- j // buffered: never blocks
		return
	}
	p.mu.Unlock()
	go p.work(j)
}

func (p *Pool[J]) work(j J) {
	w := &worker[J]{jobs: make(chan J, 1)}
	var t *time.Timer
	var zero J
	for {
		p.Do(j)
		j = zero
		p.mu.Lock()
		if len(p.idle) >= maxIdle {
			p.mu.Unlock()
			return
		}
		p.idle = append(p.idle, w)
		p.mu.Unlock()
		if t == nil {
			t = time.NewTimer(idleTime)
		} else {
			t.Reset(idleTime)
		}
		select {
		case j = <-w.jobs:
			t.Stop()
		case <-t.C:
			if p.retire(w) {
				return
			}
			j = <-w.jobs // a caller took this worker as the timer fired
		}
	}
}

// retire takes the idle worker w off the list; it is false when a caller
// took w first.
func (p *Pool[J]) retire(w *worker[J]) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	i := slices.Index(p.idle, w)
	if i >= 0 {
		p.idle = slices.Delete(p.idle, i, i+1)
	}
	return i >= 0
}

// Handoff decides, once, who takes the outcome of work run on another
// goroutine: the caller waiting for it, or, when the caller answered
// without it (Abandon), the work itself as it returns. The zero value is
// the handoff of work still running.
type Handoff struct {
	state atomic.Int32
	at    time.Time // when the caller abandoned the work; written before state changes
}

const (
	running int32 = iota
	finished
	abandoned
)

// Finished is called by the work as it returns. It reports true when the
// caller takes the outcome; false when the caller abandoned it, late ago.
func (h *Handoff) Finished() (late time.Duration, taken bool) {
	if h.state.CompareAndSwap(running, finished) {
		return 0, true
	}
	return time.Since(h.at), false
}

// Abandon is called by the caller whose time is up. It reports true when
// the work is left to itself; false when it finished meanwhile, and its
// outcome is the caller's to take.
func (h *Handoff) Abandon() bool {
	h.at = time.Now()
	return h.state.CompareAndSwap(running, abandoned)
}
