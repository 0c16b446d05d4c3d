package limit

import (
	"strconv"
	"time"
)

// Rate is a token bucket: Limit calls per Per, with bursts of up to Burst
// calls (Burst 0 means Limit). The zero Rate means no limit.
type Rate struct {
	Limit int
	Per   time.Duration
	Burst int
}

// PerSecond returns a Rate of n calls per second.
func PerSecond(n int) Rate { return Rate{Limit: n, Per: time.Second} }

// PerMinute returns a Rate of n calls per minute.
func PerMinute(n int) Rate { return Rate{Limit: n, Per: time.Minute} }

// PerHour returns a Rate of n calls per hour.
func PerHour(n int) Rate { return Rate{Limit: n, Per: time.Hour} }

// WithBurst returns r allowing bursts of n calls.
func (r Rate) WithBurst(n int) Rate {
	r.Burst = n
	return r
}

// IsZero reports whether r sets no limit.
func (r Rate) IsZero() bool { return r.Limit <= 0 || r.Per <= 0 }

// Capacity returns the bucket's size: Burst, or Limit when Burst is 0.
func (r Rate) Capacity() int {
	if r.Burst > 0 {
		return r.Burst
	}
	return r.Limit
}

// interval is the time one token takes to come back.
func (r Rate) interval() time.Duration { return r.Per / time.Duration(r.Limit) }

// String describes r for the model and the operator: "10 calls per
// minute", "1 call per 30s", "100 calls per second (bursts of 200)".
func (r Rate) String() string {
	if r.IsZero() {
		return "no limit"
	}
	s := strconv.Itoa(r.Limit) + " call"
	if r.Limit != 1 {
		s += "s"
	}
	switch r.Per {
	case time.Second:
		s += " per second"
	case time.Minute:
		s += " per minute"
	case time.Hour:
		s += " per hour"
	default:
		s += " per " + r.Per.String()
	}
	if b := r.Capacity(); b != r.Limit {
		s += " (bursts of " + strconv.Itoa(b) + ")"
	}
	return s
}
