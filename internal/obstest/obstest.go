// Package obstest lets tests hand a Wrapper an Observer they built and
// inspect (its request ids, its redactor, calls made on it directly), which
// the public shape (wrap.WithLogger, wrap.WithTelemetry) builds itself;
// Record builds one whose spans, metrics and log lines stay in memory.
package obstest

import (
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// WithObserver makes the Wrapper (or the one tool it is given to) report to
// o, whatever its WithLogger and WithTelemetry say; nil turns telemetry
// off.
func WithObserver(o *obs.Observer) wrap.Option {
	if o == nil {
		return wrap.WithLogger(nil)
	}
	return wrap.WithTelemetry(observe.Option(obs.Use(o)))
}
