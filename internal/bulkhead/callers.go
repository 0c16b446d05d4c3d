package bulkhead

import (
	"strconv"
	"sync"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
)

// Callers counts the working tasks of each caller (wrap.WithTasksPerCaller).
// It is shared by the chains built from one evaluation of the options;
// safe for concurrent use.
type Callers struct {
	mu sync.Mutex
	n  map[string]int
}

// Take counts one more task of caller, or says why it may not have one.
func (tc *Callers) Take(caller string, limit int, retryAfter time.Duration) *errs.Error {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if limit > 0 && tc.n[caller] >= limit {
		return errs.New(errs.Unavailable, "too many tasks of this caller are working ("+strconv.Itoa(limit)+
			"); wait for one to end (tasks/get) or cancel one (tasks/cancel)", errs.RetryAfter(retryAfter))
	}
	if tc.n == nil {
		tc.n = make(map[string]int)
	}
	tc.n[caller]++
	return nil
}

// Give ends one of caller's tasks.
func (tc *Callers) Give(caller string) {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	if tc.n[caller] <= 1 {
		delete(tc.n, caller)
		return
	}
	tc.n[caller]--
}
