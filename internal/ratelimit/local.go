package ratelimit

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// DefaultMaxKeys is the local store's default bound on buckets.
const DefaultMaxKeys = 100_000

// Local is the in-process Store: one golang.org/x/time/rate token bucket
// per tool and key. It runs no goroutine. Idle buckets are reaped on the
// way: when the number of buckets doubles (or reaches the bound), the
// buckets that have refilled completely, and so cannot be told from new
// ones, are dropped. If the bound is still reached, arbitrary buckets are
// dropped to make room, which hands their owners a fresh burst: a ceiling
// set with limit.WithServerLimit still holds. A Local is safe for concurrent use.
type Local struct {
	mu    sync.Mutex
	m     map[localKey]*rate.Limiter
	max   int
	sweep int // bucket count at which the next sweep runs
}

type localKey struct{ tool, scope, id string }

const minSweep = 1024

// NewLocal returns a local store holding at most maxKeys buckets
// (DefaultMaxKeys when maxKeys <= 0).
func NewLocal(maxKeys int) *Local {
	if maxKeys <= 0 {
		maxKeys = DefaultMaxKeys
	}
	return &Local{m: make(map[localKey]*rate.Limiter), max: maxKeys, sweep: min(minSweep, maxKeys)}
}

// Len returns the number of buckets held.
func (s *Local) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

// Take takes one token from b's bucket at now.
func (s *Local) Take(_ context.Context, now time.Time, b Bucket) (Decision, error) {
	k := localKey{b.Tool, b.Scope, b.ID}
	s.mu.Lock()
	lim := s.m[k]
	if lim == nil {
		if len(s.m) >= s.sweep {
			s.reap(now)
		}
		lim = rate.NewLimiter(rate.Every(b.Interval()), b.Burst)
		s.m[k] = lim
	}
	if lim.AllowN(now, 1) {
		s.mu.Unlock()
		return Decision{Allowed: true}, nil
	}
	missing := 1 - lim.TokensAt(now)
	s.mu.Unlock()
	return Decision{RetryAfter: time.Duration(missing * float64(b.Interval()))}, nil
}

// reap drops the full buckets, then arbitrary ones if the bound is reached,
// and sets the size of the next sweep. Called with s.mu held.
func (s *Local) reap(now time.Time) {
	for k, lim := range s.m {
		if lim.TokensAt(now) >= float64(lim.Burst()) {
			delete(s.m, k)
		}
	}
	if len(s.m) >= s.max {
		keep := s.max - s.max/8
		for k := range s.m {
			if len(s.m) <= keep {
				break
			}
			delete(s.m, k)
		}
	}
	s.sweep = min(max(2*len(s.m), minSweep), s.max)
}
