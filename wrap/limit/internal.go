package limit

import (
	"time"

	"github.com/mcpwrap/mcpwrap/internal/ratelimit"
)

// The hooks of internal/ratelimit build Options that no user sets: the
// Redis store (redislimit.Store wraps it in its own function) and the test
// clock. They are registered here because internal/ratelimit cannot import
// this package.
func init() {
	ratelimit.WithStore = func(s ratelimit.Store) any {
		return Option(func(c *config) { c.store = s })
	}
	ratelimit.WithClock = func(now func() time.Time) any {
		return Option(func(c *config) { c.now = now })
	}
}
