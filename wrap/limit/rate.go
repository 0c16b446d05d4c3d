package limit

import (
	"strconv"
	"time"
)

// Rate is a token bucket: Limit calls per Per, with bursts of up to Burst
// calls (Burst 0 means Limit). Rate{Limit: 10, Per: time.Minute} is 10
// calls per minute. The zero Rate means no limit.
type Rate struct {
	Limit int
	Per   time.Duration
	Burst int
}

// isZero reports whether r sets no limit.
func (r Rate) isZero() bool { return r.Limit <= 0 || r.Per <= 0 }

// capacity is the bucket's size: Burst, or Limit when Burst is 0.
func (r Rate) capacity() int {
	if r.Burst > 0 {
		return r.Burst
	}
	return r.Limit
}

// String describes r for the model and the operator: "10 calls per
// minute", "1 call per 30s", "100 calls per second (bursts of 200)".
func (r Rate) String() string {
	if r.isZero() {
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
	if b := r.capacity(); b != r.Limit {
		s += " (bursts of " + strconv.Itoa(b) + ")"
	}
	return s
}
