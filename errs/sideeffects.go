package errs

import (
	"errors"
	"net"
	"syscall"
)

// SideEffects says whether a failed call may have acted upstream; the
// result tells the model so it does not repeat a write blindly.
type SideEffects uint8

const (
	// SideEffectsUnknown says nothing (the call was retried, or is safe to
	// repeat).
	SideEffectsUnknown SideEffects = iota
	// SideEffectsNone: the request never reached the upstream (refused,
	// circuit open, rate limited, ErrNotSent); nothing happened.
	SideEffectsNone
	// SideEffectsPossible: the upstream may have acted before the failure
	// (a reset, a timeout, a 503 from a gateway).
	SideEffectsPossible
)

var sideEffectsNames = [...]string{SideEffectsUnknown: "", SideEffectsNone: "none", SideEffectsPossible: "possible"}

// String returns "none", "possible" or "" (unknown), the value of
// Info.SideEffects.
func (s SideEffects) String() string {
	if int(s) < len(sideEffectsNames) {
		return sideEffectsNames[s]
	}
	return ""
}

// MarshalText returns String.
func (s SideEffects) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ErrNotSent marks a failure that happened before anything was sent to the
// upstream (a circuit breaker open, a failed dial, a closed client): match it
// with errors.Is. Such a call changed nothing, so it is safe to repeat.
var ErrNotSent = errors.New("not sent to the upstream")

// SideEffectsOf tells whether a failed call may have acted upstream:
// SideEffectsNone when the request provably never got there (ErrNotSent, a
// refused connection, a DNS failure, a rate limit), SideEffectsPossible
// otherwise.
func SideEffectsOf(err error) SideEffects {
	var dns *net.DNSError
	switch {
	case errors.Is(err, ErrNotSent),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.As(err, &dns),
		CodeOf(err) == RateLimited:
		return SideEffectsNone
	}
	return SideEffectsPossible
}
