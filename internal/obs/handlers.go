package obs

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/mcpwrap/mcpwrap/internal/semconv"
)

// ObserveHandlers makes read the source of the mcpwrap.tool.handlers gauge
// (by gen_ai.tool.name and mcpwrap.handler.state: "running", or
// "abandoned" — answered on timeout, not yet returned): at each
// collection read reports every tool's running and abandoned handlers. It is
// called once, at construction (wrap's bulkhead does), and returns the
// function that unregisters read. With metrics off it registers nothing.
func (o *Observer) ObserveHandlers(read func(report func(tool string, running, abandoned int64))) (unregister func() error, err error) {
	nothing := func() error { return nil }
	if !o.metrics || read == nil {
		return nothing, nil
	}
	m := o.mp.Meter(semconv.ScopeName, metric.WithInstrumentationVersion(semconv.ScopeVersion))
	g, err := m.Int64ObservableUpDownCounter(semconv.MetricHandlers, metric.WithUnit("{handler}"),
		metric.WithDescription("Tool handlers holding a bulkhead slot: running, or abandoned by their timeout and not yet returned."))
	if err != nil {
		return nothing, err
	}
	running := attribute.String(semconv.AttrHandlerState, semconv.HandlerRunning)
	abandoned := attribute.String(semconv.AttrHandlerState, semconv.HandlerAbandoned)
	reg, err := m.RegisterCallback(func(_ context.Context, ob metric.Observer) error {
		read(func(tool string, r, a int64) {
			t := attribute.String(semconv.AttrToolName, tool)
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
