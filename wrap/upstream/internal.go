package upstream

import (
	"time"

	"github.com/mcpwrap/mcpwrap/internal/upstreamhook"
)

// The test clock is an Option no user sets; it is registered here because
// internal/upstreamhook cannot import this package.
func init() {
	upstreamhook.WithClock = func(now func() time.Time) any {
		return optionFunc(func(s *settings) {
			if now != nil {
				s.now = now
			}
		})
	}
}
