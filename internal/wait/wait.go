// Package wait holds the one context-aware sleep that retry loops share.
package wait

import (
	"context"
	"time"
)

// Sleep waits for d or until ctx ends, whichever is first, and returns
// ctx's error in the second case. A d of zero or less only checks ctx.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
