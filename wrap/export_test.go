package wrap

import (
	"context"
	"time"
)

// SetStateClock makes w's multi round-trip states read the time from now,
// for a test of their expiry; call it before w serves.
func SetStateClock(w *Wrapper, now func() time.Time) { w.cfg.states.SetClock(now) }

// RetrySleeping is p with its waits going to sleep instead of a timer.
func RetrySleeping(p RetryPolicy, sleep func(context.Context, time.Duration) error) RetryPolicy {
	p.sleep = sleep
	return p
}
