package observe

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// MetricHandlers is the number of tool handlers holding a slot of wrap's
// bulkhead, by tool (AttrToolName) and state (AttrHandlerState): "running",
// or "abandoned" — answered on timeout, not yet returned.
const MetricHandlers = "mcpwrap.tool.handlers"

// AttrHandlerState is the state attribute of MetricHandlers.
const AttrHandlerState = "mcpwrap.handler.state"

// Values of AttrHandlerState.
const (
	HandlerRunning   = "running"
	HandlerAbandoned = "abandoned"
)

// ObserveHandlers makes read the source of the MetricHandlers gauge: at each
// collection read reports every tool's running and abandoned handlers. It is
// called once, at construction (wrap's bulkhead does), and returns the
// function that unregisters read. With metrics off it registers nothing.
func (o *Observer) ObserveHandlers(read func(report func(tool string, running, abandoned int64))) (unregister func() error, err error) {
	nothing := func() error { return nil }
	if !o.metrics || read == nil {
		return nothing, nil
	}
	m := o.mp.Meter(ScopeName, metric.WithInstrumentationVersion(ScopeVersion))
	g, err := m.Int64ObservableUpDownCounter(MetricHandlers, metric.WithUnit("{handler}"),
		metric.WithDescription("Tool handlers holding a bulkhead slot: running, or abandoned by their timeout and not yet returned."))
	if err != nil {
		return nothing, err
	}
	running := attribute.String(AttrHandlerState, HandlerRunning)
	abandoned := attribute.String(AttrHandlerState, HandlerAbandoned)
	reg, err := m.RegisterCallback(func(_ context.Context, ob metric.Observer) error {
		read(func(tool string, r, a int64) {
			t := attribute.String(AttrToolName, tool)
			ob.ObserveInt64(g, r, metric.WithAttributes(t, running))
			ob.ObserveInt64(g, a, metric.WithAttributes(t, abandoned))
		})
		return nil
	}, g)
	if err != nil {
		return nothing, err
	}
	return reg.Unregister, nil
}
