package wrap

import "time"

// SetStateClock makes w's multi round-trip states read the time from now,
// for a test of their expiry; call it before w serves.
func SetStateClock(w *Wrapper, now func() time.Time) { w.cfg.states.now = now }
