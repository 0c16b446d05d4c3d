package outbound

// What the external tests reach that users do not: every outcome, and the
// hooks that replace the wait between retries and the clock.
var (
	Outcomes  = outcomes[:]
	WithSleep = withSleep
	WithClock = withClock
)

// WithRand is l drawing each wait's place in its jitter range from r.
func WithRand(l RetryLimits, r func() float64) RetryLimits {
	l.rand = r
	return l
}
