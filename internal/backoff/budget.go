package backoff

import "sync/atomic"

// Budget is the retry token bucket (gRPC's retry throttling), in
// thousandths of a token so that it fits one atomic integer: each failed
// attempt takes a token, each success puts back a share of one, and
// retries stop while it is at half or less. Safe for concurrent use.
type Budget struct {
	max, ratio int64
	tokens     atomic.Int64
}

// NewBudget is a full bucket of tokens, a success putting back ratio.
func NewBudget(tokens int, ratio float64) *Budget {
	b := &Budget{max: int64(tokens) * 1000, ratio: max(int64(ratio*1000), 1)}
	b.tokens.Store(b.max)
	return b
}

// Failure takes a token.
func (b *Budget) Failure() {
	for {
		t := b.tokens.Load()
		if t == 0 || b.tokens.CompareAndSwap(t, max(t-1000, 0)) {
			return
		}
	}
}

// Success puts back a share of one.
func (b *Budget) Success() {
	for {
		t := b.tokens.Load()
		if t >= b.max || b.tokens.CompareAndSwap(t, min(t+b.ratio, b.max)) {
			return
		}
	}
}

// Allow reports whether a retry may happen.
func (b *Budget) Allow() bool { return b.tokens.Load() > b.max/2 }
