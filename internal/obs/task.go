package obs

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
)

// StartTask begins observing the work of a task a call created (MCP
// tasks): a log line and a span of its own, ended with End like a call's.
// The span is a new root, linked to created (the creation's span, when
// valid): the work outlives the request that created it, and its trace
// must not hang from a span that ended long before. callID is the
// creating call's id, so that both lines carry it.
func (o *Observer) StartTask(ctx context.Context, req *call.Request, callID string, created trace.SpanContext) (context.Context, *Recording) {
	if callID == "" {
		callID = newCallID()
	}
	c := o.newRecording(ctx, req, callID, time.Now())
	if o.tracer == nil {
		return ctx, c
	}
	name := semconv.MethodToolsCall
	if c.tool != "" {
		name += " " + c.tool
	}
	opts := []trace.SpanStartOption{serverKind, trace.WithNewRoot(), trace.WithTimestamp(c.begin),
		trace.WithAttributes(c.startAttrs(semconv.MethodToolsCall, semconv.AttrToolName)...)}
	if created.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: created}))
	}
	ctx, s := o.tracer.Start(ctx, name, opts...)
	c.own(s)
	return ctx, c
}

// SpanContext is the span of the call, invalid without one.
func (c *Recording) SpanContext() trace.SpanContext {
	if c == nil || c.span == nil {
		return trace.SpanContext{}
	}
	return c.span.SpanContext()
}
