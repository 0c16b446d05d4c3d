package errmap

import (
	"errors"
	"net"
	"syscall"

	"github.com/mcpwrap/mcpwrap/errs"
)

// SideEffects says whether a failed call may have acted upstream; the
// result tells the model so it does not repeat a write blindly.
type SideEffects uint8

const (
	// SideEffectsUnknown says nothing (the call was retried, or is safe to
	// repeat).
	SideEffectsUnknown SideEffects = iota
	// SideEffectsNone: the request never reached the upstream (refused,
	// circuit open, rate limited, errs.ErrNotSent); nothing happened.
	SideEffectsNone
	// SideEffectsPossible: the upstream may have acted before the failure
	// (a reset, a timeout, a 503 from a gateway).
	SideEffectsPossible
	// SideEffectsHappened: the call succeeded upstream, but its answer
	// could not be sent (errs.ResultTooLarge); a repeat would repeat it.
	SideEffectsHappened
)

var sideEffectsNames = [...]string{SideEffectsUnknown: "", SideEffectsNone: "none", SideEffectsPossible: "possible",
	SideEffectsHappened: "happened"}

// String returns "none", "possible", "happened" or "" (unknown), the value of
// Info.SideEffects.
func (s SideEffects) String() string {
	if int(s) < len(sideEffectsNames) {
		return sideEffectsNames[s]
	}
	return ""
}

// repeatable reports whether the call may be repeated as far as its side
// effects go: none are known to be possible or to have happened.
func (s SideEffects) repeatable() bool {
	return s != SideEffectsPossible && s != SideEffectsHappened
}

// SideEffectsOf tells whether a failed call may have acted upstream:
// SideEffectsNone when the request provably never got there
// (errs.ErrNotSent, a refused connection, a DNS failure, a rate limit),
// SideEffectsPossible otherwise.
func SideEffectsOf(err error) SideEffects {
	var dns *net.DNSError
	switch {
	case errors.Is(err, errs.ErrNotSent),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.As(err, &dns),
		errs.CodeOf(err) == errs.RateLimited:
		return SideEffectsNone
	}
	return SideEffectsPossible
}
