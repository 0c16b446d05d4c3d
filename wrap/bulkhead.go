package wrap

import (
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/bulkhead"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/shutdown"
)

// defaultBulkheadPerTool is how many calls of one tool may hold a slot at
// once when WithBulkhead is not given (see Bulkhead.PerTool).
const defaultBulkheadPerTool = 128

// Bulkhead limits how many handlers of a tool hold resources at once. A call
// holds a slot from the moment it is admitted until its handler really
// returns: a handler abandoned by its timeout (the call was answered, the
// handler ignores its context) keeps its slot, its goroutine and what it
// references until it ends. A call that finds no free slot is answered at
// once with an Unavailable result carrying a retry-after; its handler does
// not run. Zero fields take the defaults.
type Bulkhead struct {
	// PerTool is how many calls of one tool may hold a slot at once, running
	// or abandoned: 0 means 128, a negative number means
	// no per-tool limit. A negative PerTool with no Total turns the bulkhead
	// off: nothing is counted, nothing bounds abandoned handlers.
	PerTool int
	// Total limits the slots of all tools of the Wrapper together; 0 (the
	// default) means no limit beyond the per-tool ones.
	Total int
	// RetryAfter is the wait suggested to the model when a call is refused
	// (default 1s).
	RetryAfter time.Duration
}

// WithBulkhead sets the limits of the bulkhead. Without it every Wrapper has
// one with the defaults: defaultBulkheadPerTool slots per tool, no total
// limit. The limits are shared by the handlers built from one evaluation of
// the options (a Wrapper and the tools it wraps, unless a tool is given a
// WithBulkhead of its own).
func WithBulkhead(b Bulkhead) Option {
	return func(c *config) {
		c.bulk = newBulkhead(b)
		c.noBulk = c.bulk == nil
	}
}

func newBulkhead(b Bulkhead) *bulkhead.Bulkhead {
	if b.PerTool < 0 && b.Total <= 0 {
		return nil
	}
	perTool := int64(b.PerTool)
	if perTool == 0 {
		perTool = defaultBulkheadPerTool
	}
	return bulkhead.New(perTool, int64(max(b.Total, 0)), b.RetryAfter)
}

// admitted is the state a call carries through the chain once admitted:
// its slot and the config that gave it. The zero value (no bulkhead) does
// nothing.
type admitted struct {
	bulk  *bulkhead.Bulkhead
	slots *bulkhead.Slots
	fatal *shutdown.State
}

// admit is the first layer of the chain: a call is refused while the
// process is stopping (see WithFatalExit) or when the bulkhead is full. The
// call must give back what it got with leave once answered.
func (c *config) admit(tool string) (admitted, *outcome) {
	var a admitted
	if c.fatal != nil {
		if err := c.fatal.Enter(); err != nil {
			return a, &outcome{err: errs.From(err), sideEffects: errmap.SideEffectsNone}
		}
		a.fatal = c.fatal
	}
	if c.bulk != nil {
		s, err := c.bulk.Acquire(tool)
		if err != nil {
			a.leave()
			return admitted{}, &outcome{err: errs.From(err), sideEffects: errmap.SideEffectsNone}
		}
		a.bulk, a.slots = c.bulk, s
	}
	return a, nil
}

// leave ends the call's stay in the chain: its answer is on its way.
func (a admitted) leave() {
	if a.bulk != nil {
		a.bulk.Release(a.slots)
	}
	if a.fatal != nil {
		a.fatal.Leave()
	}
}

// abandoned moves the slot of the call of tool to its handler, which the
// timeout left running, and returns the function to call once it returns.
func (c *config) abandoned(tool string) func() {
	b := c.bulk
	if b == nil {
		return func() {}
	}
	s := b.For(tool)
	b.Abandon(s)
	return func() { b.Returned(s) }
}

// resilience finishes the evaluation of the bulkhead and fatal-exit options
// once the observer is known.
func (c *config) resilience() {
	if c.bulk == nil && !c.noBulk {
		c.bulk = newBulkhead(Bulkhead{})
	}
	if c.bulk != nil {
		c.bulk.ObserveWith(c.observer)
	}
	if c.fatal != nil {
		c.fatal.Bind(c.observer)
	}
}
