package errmap

import (
	"strconv"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
)

// Timeout is how long a call waited before its timeout answer: the tool's
// timeout (set), or less when a write timeout leaves less (then
// writeTimeout is that write timeout). queued is how long it waited for a
// worker of the transport before the layer saw it.
type Timeout struct {
	Set, Waited, WriteTimeout, Queued time.Duration
	// Idle is WithProgressTimeout's idle time (Set is then its hard cap);
	// NoProgress says the idle clock, not the cap, ended the call.
	Idle       time.Duration
	NoProgress bool
}

// Err says the timeout the operator set, and when a write timeout
// cut the wait short, that too, with the wait rounded to two figures (the
// time left before a write deadline is 28.999s for a 30s write timeout).
func (t Timeout) Err(tool string, cause error) *errs.Error {
	if t.NoProgress {
		return errs.Wrap(errs.Timeout, cause, "tool "+strconv.Quote(tool)+" timed out: it reported no progress for "+
			t.Idle.String()+"; the operation may still complete upstream")
	}
	after := t.Set.String()
	if t.Idle > 0 && t.WriteTimeout == 0 {
		after += ", the most a call that reports progress may take"
	}
	if t.WriteTimeout > 0 {
		after = TwoFigures(t.Waited).String() + ", the most the server's " + t.WriteTimeout.String() +
			" write timeout leaves (the tool's timeout is " + t.Set.String() + ")"
	}
	if t.Queued >= t.Set {
		return errs.Wrap(errs.Timeout, cause, "tool "+strconv.Quote(tool)+" timed out after "+t.Set.String()+
			" waiting for a free worker of the server; it did not run")
	}
	if t.Queued > 0 {
		after += " (" + TwoFigures(t.Queued).String() + " of it waiting for a free worker of the server)"
	}
	return errs.Wrap(errs.Timeout, cause,
		"tool "+strconv.Quote(tool)+" timed out after "+after+"; the operation may still complete upstream")
}

// TwoFigures rounds d to two significant figures.
func TwoFigures(d time.Duration) time.Duration {
	u := time.Duration(1)
	for u*100 <= d {
		u *= 10
	}
	return d.Round(u)
}
