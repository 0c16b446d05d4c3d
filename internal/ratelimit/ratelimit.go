// Package ratelimit holds what wrap/limit and wrap/limit/redislimit share
// and no user names: the store a Limiter keeps its buckets in, the local
// store, and the hooks that let redislimit and tests build limit.Options
// (limit registers them from its init, in limit/internal.go, because an
// internal package cannot import the package it serves).
package ratelimit

import (
	"context"
	"errors"
	"time"
)

// OutageAfter is how many store calls in a row must fail, with none
// succeeding meanwhile, before the Limiter (and the Redis store) count the
// store as down.
const OutageAfter = 3

// SlowOutage is how long store calls must have been failing with ErrSlow,
// nothing answered meanwhile, before those failures are an outage too. A
// refused connection is an outage at once (after OutageAfter); running out
// of the budget is not: the first calls of a burst on a loaded machine run
// out of it as a stalled store's do, and taking a burst for an outage
// would let each replica admit the limit on its own.
const SlowOutage = 3 * time.Second

// ErrSlow marks a store call that ran out of its budget (a stalled store,
// or one busy with a burst) rather than one the store refused.
var ErrSlow = errors.New("the rate-limit store did not answer within the budget")

// Bucket names one token bucket: a tool's calls by one key, or (Tool "",
// Scope "server") the server-wide ceiling; Limit calls per Per, holding up
// to Burst tokens.
type Bucket struct {
	Tool, Scope, ID string
	Limit           int
	Per             time.Duration
	Burst           int
}

// Interval is the time one token takes to come back.
func (b Bucket) Interval() time.Duration { return b.Per / time.Duration(b.Limit) }

// Decision is a store's answer for one call.
type Decision struct {
	Allowed bool
	// RetryAfter is, for a refused call, how long until one call fits.
	RetryAfter time.Duration
}

// Store keeps the token buckets. Take must be safe for concurrent use and
// return by ctx's deadline, which is the Limiter's store budget (ctx is
// never cancelled otherwise); an error means the store could not decide
// that call, which the Limiter then refuses with a retry, or, during an
// outage, decides by its fail mode.
type Store interface {
	Take(ctx context.Context, now time.Time, b Bucket) (Decision, error)
}

// Set by wrap/limit's init. Each returns a limit.Option.
var (
	// WithStore keeps the buckets in s instead of a Local.
	WithStore func(s Store) any
	// WithClock sets the clock the Limiter reads, for tests that step
	// through a window without sleeping.
	WithClock func(now func() time.Time) any
)
