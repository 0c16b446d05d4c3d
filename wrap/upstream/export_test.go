package upstream

import "time"

// WithClock is an Option replacing time.Now, for tests of the breaker's open
// window; a nil now keeps time.Now.
func WithClock(now func() time.Time) Option {
	return optionFunc(func(s *settings) {
		if now != nil {
			s.now = now
		}
	})
}
