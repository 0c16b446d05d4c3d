package outbound

// What the external tests reach that users do not: every outcome, and the
// hooks that replace the wait between retries and the clock.
var (
	Outcomes  = outcomes[:]
	WithSleep = withSleep
	WithClock = withClock
)
