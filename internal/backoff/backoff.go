// Package backoff is the one exponential backoff of mcpwrap: wrap's retries,
// outbound's retry advice and the upstream circuit breaker's open window all
// compute their waits here.
package backoff

import (
	"math/rand/v2"
	"time"
)

// The defaults of a retry policy's public fields, where wrap's RetryPolicy
// and outbound's RetryLimits agree: at most DefaultRetries retries, the
// first after about DefaultInitial.
const (
	DefaultRetries = 2
	DefaultInitial = 200 * time.Millisecond
)

// Retries reads a retry count as the public fields spell it: 0 means
// DefaultRetries, a negative number none.
func Retries(n int) int {
	switch {
	case n < 0:
		return 0
	case n == 0:
		return DefaultRetries
	}
	return n
}

// Jitter says how a computed wait d is spread.
type Jitter uint8

const (
	// Full draws the wait uniformly from [0, d]: retries of many calls
	// spread out the most (AWS "full jitter", what wrap's retries use).
	Full Jitter = iota
	// Equal draws from [d/2, d]: spread, but never collapsing to zero
	// (the breaker's open window, outbound's advice).
	Equal
	// None waits exactly d.
	None
)

// Exponential is Initial·2ⁿ⁻¹ capped at Max, spread by Jitter. The zero
// value waits nothing. It is a value type: copy it freely; it is safe for
// concurrent use.
type Exponential struct {
	// Initial is the wait before the first retry (before jitter).
	Initial time.Duration
	// Max caps every wait, before jitter; 0 means no cap.
	Max time.Duration
	// Jitter spreads the wait; the zero value is Full.
	Jitter Jitter
	// Rand returns a number in [0, 1); nil means math/rand/v2. Tests pass
	// a constant.
	Rand func() float64
}

// Delay returns the wait before retry n (1-based; n < 1 counts as 1).
func (e Exponential) Delay(n int) time.Duration {
	d := e.Initial << min(max(n, 1)-1, 30)
	if d <= 0 || (e.Max > 0 && d > e.Max) {
		d = e.Max
	}
	if d <= 0 {
		return 0
	}
	switch e.Jitter {
	case Equal:
		return d/2 + e.spread(d-d/2)
	case None:
		return d
	}
	return e.spread(d)
}

// Wait returns the wait before retry n, where retryAfter, when positive (a
// server's Retry-After), takes precedence over the computed backoff.
func (e Exponential) Wait(n int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter
	}
	return e.Delay(n)
}

// spread returns a duration in [0, d].
func (e Exponential) spread(d time.Duration) time.Duration {
	if e.Rand == nil {
		return rand.N(d + 1)
	}
	return time.Duration(e.Rand() * float64(d+1))
}
