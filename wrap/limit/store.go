package limit

import (
	"context"
	"time"
)

// Bucket names one token bucket: a tool's calls by one key, or (Tool "")
// the server-wide ceiling.
type Bucket struct {
	Tool string
	Key  Key
	Rate Rate
}

// Decision is a store's answer for one call.
type Decision struct {
	Allowed bool
	// RetryAfter is, for a refused call, how long until one call fits.
	RetryAfter time.Duration
}

// Store keeps the token buckets. The local store (NewLocal) keeps them in
// the process; wrap/limit/redislimit keeps them in Redis, shared by every
// replica. Take must be safe for concurrent use and return within a bounded
// time; an error means the store could not decide that call, which the
// Limiter then refuses with a retry, or, during an outage, decides by its
// fail mode (see WithFailClosed).
type Store interface {
	Take(ctx context.Context, now time.Time, b Bucket) (Decision, error)
}
