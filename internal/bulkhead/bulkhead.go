// Package bulkhead counts the calls of each tool holding a slot — running,
// or abandoned by their timeout and not returned yet — and refuses a call
// when a tool's limit or the total is reached (wrap.Bulkhead is its
// public face). A Bulkhead is safe for concurrent use.
package bulkhead

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/obs"
)

// Bulkhead is the evaluated wrap.Bulkhead and its counts.
type Bulkhead struct {
	perTool, total int64
	retryAfter     time.Duration
	all            Slots    // counted only when total > 0
	tools          sync.Map // tool name → *Slots
	gauge          sync.Once
}

// Slots counts the calls of one tool (or of all tools) holding a slot.
// running counts calls inside the chain, abandoned the handlers whose call
// was answered on timeout but which have not returned yet; a slot is held
// while either counts it. An abandoning call adds to abandoned before it
// leaves running, so the sum never undercounts and the limit is never
// exceeded.
type Slots struct {
	running, abandoned atomic.Int64
}

// New is a bulkhead of perTool slots per tool (no limit when not above
// 0) and total slots in all (none when 0); a refusal suggests retryAfter
// (1s when not above 0).
func New(perTool, total int64, retryAfter time.Duration) *Bulkhead {
	if retryAfter <= 0 {
		retryAfter = time.Second
	}
	return &Bulkhead{perTool: perTool, total: total, retryAfter: retryAfter}
}

// RetryAfter is the wait a refusal suggests.
func (b *Bulkhead) RetryAfter() time.Duration { return b.retryAfter }

// For is the count of tool's calls.
func (b *Bulkhead) For(tool string) *Slots {
	if s, ok := b.tools.Load(tool); ok {
		return s.(*Slots)
	}
	s, _ := b.tools.LoadOrStore(tool, new(Slots))
	return s.(*Slots)
}

// Acquire takes a slot for a call of tool, or says why it cannot.
func (b *Bulkhead) Acquire(tool string) (*Slots, error) {
	s := b.For(tool)
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

// Release gives back the slot of a call whose handler has returned, or
// hands it over to the abandoned handler (abandon ran before).
func (b *Bulkhead) Release(s *Slots) {
	s.running.Add(-1)
	if b.total > 0 {
		b.all.running.Add(-1)
	}
}

// Abandon moves a call's slot to its handler, which outlives the answer.
func (b *Bulkhead) Abandon(s *Slots) {
	s.abandoned.Add(1)
	if b.total > 0 {
		b.all.abandoned.Add(1)
	}
}

// Returned frees the slot of an abandoned handler that finally returned.
func (b *Bulkhead) Returned(s *Slots) {
	s.abandoned.Add(-1)
	if b.total > 0 {
		b.all.abandoned.Add(-1)
	}
}

// ObserveWith publishes the counts as the mcpwrap.tool.handlers gauge on o's meter,
// once per bulkhead (the first observer wins).
func (b *Bulkhead) ObserveWith(o *obs.Observer) {
	if o == nil {
		return
	}
	b.gauge.Do(func() {
		_, _ = o.ObserveHandlers(func(report func(tool string, running, abandoned int64)) {
			b.tools.Range(func(k, v any) bool {
				s := v.(*Slots)
				report(k.(string), s.running.Load(), s.abandoned.Load())
				return true
			})
		})
	})
}
