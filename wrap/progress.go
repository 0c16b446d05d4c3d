package wrap

import "time"

// WithProgressTimeout makes the per-call timeout progress-aware, as the
// MCP specification's timeout guidance describes: the call times out when
// its handler has reported no progress (a notifications/progress for the
// call) for idle, and in any case hardCap after it started. Each progress
// notification starts the idle clock again. It replaces WithTimeout for
// the chains it is given to (the Wrapper's, or one tool's: ForTool,
// mcpgo.Tool, gosdk.Tool); an idle of 0 turns it off, and a hardCap
// below idle is raised to idle. The timeout answer says which limit it
// was. A go-sdk handler's progress is seen when it sends it with its
// call's context (req.Session.NotifyProgress(ctx, …)); an mcp-go handler's
// through mcpgo.NotifyProgress. Calls without the option pay nothing for
// it.
func WithProgressTimeout(idle, hardCap time.Duration) Option {
	return func(c *config) {
		c.progressIdle, c.progressCap = max(idle, 0), max(hardCap, idle, 0)
	}
}
