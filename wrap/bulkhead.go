package wrap

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/obs"
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

// bulkhead is the evaluated Bulkhead and its counts.
type bulkhead struct {
	perTool, total int64
	retryAfter     time.Duration
	all            slots    // counted only when total > 0
	tools          sync.Map // tool name → *slots
	gauge          sync.Once
}

// slots counts the calls of one tool (or of all tools) holding a slot.
// running counts calls inside the chain, abandoned the handlers whose call
// was answered on timeout but which have not returned yet; a slot is held
// while either counts it. An abandoning call adds to abandoned before it
// leaves running, so the sum never undercounts and the limit is never
// exceeded.
type slots struct {
	running, abandoned atomic.Int64
}

func newBulkhead(b Bulkhead) *bulkhead {
	if b.PerTool < 0 && b.Total <= 0 {
		return nil
	}
	h := &bulkhead{perTool: int64(b.PerTool), total: int64(max(b.Total, 0)), retryAfter: b.RetryAfter}
	if h.perTool == 0 {
		h.perTool = defaultBulkheadPerTool
	}
	if h.retryAfter <= 0 {
		h.retryAfter = time.Second
	}
	return h
}

func (b *bulkhead) slotsFor(tool string) *slots {
	if s, ok := b.tools.Load(tool); ok {
		return s.(*slots)
	}
	s, _ := b.tools.LoadOrStore(tool, new(slots))
	return s.(*slots)
}

// acquire takes a slot for a call of tool, or says why it cannot.
func (b *bulkhead) acquire(tool string) (*slots, error) {
	s := b.slotsFor(tool)
	if n := s.running.Add(1); b.perTool > 0 && n+s.abandoned.Load() > b.perTool {
		s.running.Add(-1)
		return nil, errs.New(errs.Unavailable, "tool "+strconv.Quote(tool)+" is busy: "+
			strconv.FormatInt(b.perTool, 10)+" of its calls are already running or have timed out without finishing",
			errs.RetryAfter(b.retryAfter))
	}
	if b.total == 0 {
		return s, nil
	}
	if n := b.all.running.Add(1); n+b.all.abandoned.Load() > b.total {
		b.all.running.Add(-1)
		s.running.Add(-1)
		return nil, errs.New(errs.Unavailable, "the server is busy: "+
			strconv.FormatInt(b.total, 10)+" tool calls are already running or have timed out without finishing",
			errs.RetryAfter(b.retryAfter))
	}
	return s, nil
}

// release gives back the slot of a call whose handler has returned, or
// hands it over to the abandoned handler (abandon ran before).
func (b *bulkhead) release(s *slots) {
	s.running.Add(-1)
	if b.total > 0 {
		b.all.running.Add(-1)
	}
}

// abandon moves a call's slot to its handler, which outlives the answer.
func (b *bulkhead) abandon(s *slots) {
	s.abandoned.Add(1)
	if b.total > 0 {
		b.all.abandoned.Add(1)
	}
}

// returned frees the slot of an abandoned handler that finally returned.
func (b *bulkhead) returned(s *slots) {
	s.abandoned.Add(-1)
	if b.total > 0 {
		b.all.abandoned.Add(-1)
	}
}

// observeWith publishes the counts as the mcpwrap.tool.handlers gauge on o's meter,
// once per bulkhead (the first observer wins).
func (b *bulkhead) observeWith(o *obs.Observer) {
	if o == nil {
		return
	}
	b.gauge.Do(func() {
		_, _ = o.ObserveHandlers(func(report func(tool string, running, abandoned int64)) {
			b.tools.Range(func(k, v any) bool {
				s := v.(*slots)
				report(k.(string), s.running.Load(), s.abandoned.Load())
				return true
			})
		})
	})
}

// admitted is the state a call carries through the chain once admitted:
// its slot and the config that gave it. The zero value (no bulkhead) does
// nothing.
type admitted struct {
	bulk  *bulkhead
	slots *slots
	fatal *fatalState
}

// admit is the first layer of the chain: a call is refused while the
// process is stopping (see WithFatalExit) or when the bulkhead is full. The
// call must give back what it got with leave once answered.
func (c *config) admit(tool string) (admitted, *outcome) {
	var a admitted
	if c.fatal != nil {
		if err := c.fatal.enter(); err != nil {
			return a, &outcome{err: errs.From(err), sideEffects: errmap.SideEffectsNone}
		}
		a.fatal = c.fatal
	}
	if c.bulk != nil {
		s, err := c.bulk.acquire(tool)
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
		a.bulk.release(a.slots)
	}
	if a.fatal != nil {
		a.fatal.leave()
	}
}

// abandoned moves the slot of the call of tool to its handler, which the
// timeout left running, and returns the function to call once it returns.
func (c *config) abandoned(tool string) func() {
	b := c.bulk
	if b == nil {
		return func() {}
	}
	s := b.slotsFor(tool)
	b.abandon(s)
	return func() { b.returned(s) }
}

// resilience finishes the evaluation of the bulkhead and fatal-exit options
// once the observer is known.
func (c *config) resilience() {
	if c.bulk == nil && !c.noBulk {
		c.bulk = newBulkhead(Bulkhead{})
	}
	if c.bulk != nil {
		c.bulk.observeWith(c.observer)
	}
	if c.fatal != nil {
		c.fatal.bind(c.observer)
	}
}
