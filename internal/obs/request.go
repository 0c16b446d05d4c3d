package obs

import (
	"context"
	"log/slog"
	"net/http"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
)

// requestKind says which request a Recording observes: a tools/call (the
// zero value) or a request observed like one, resources/read or
// prompts/get. (A byte, not a pointer, keeps the Recording's size class.)
type requestKind uint8

const (
	kindTool requestKind = iota
	kindResource
	kindPrompt
)

// requestNames are the names of the requests that are not tool calls: the
// method, the attribute naming the target, the log line's key and message.
var requestNames = [...]struct{ method, attr, logKey, message string }{
	kindResource: {semconv.MethodResourcesRead, semconv.AttrResourceURI, semconv.KeyResource, semconv.MsgResourceRead},
	kindPrompt:   {semconv.MethodPromptsGet, semconv.AttrPromptName, semconv.KeyPrompt, semconv.MsgPromptGet},
}

func (c *Recording) startRequestSpan(ctx context.Context, req *call.Request) context.Context {
	name := requestNames[c.kind].method
	if c.kind == kindPrompt && c.tool != "" {
		name += " " + c.tool
	}
	return c.openSpan(ctx, name, req.Meta, c.header, c.startAttrs(requestNames[c.kind].method, requestNames[c.kind].attr))
}

// openSpan starts the request's SERVER span, or adopts the SDK's.
func (c *Recording) openSpan(ctx context.Context, name string, meta map[string]any, header http.Header, attrs []attribute.KeyValue) context.Context {
	o := c.o
	if s, ok := ctx.Value(serverSpanKey{}).(trace.Span); ok && s.IsRecording() {
		c.span = s
		s.SetName(name)
		s.SetAttributes(attrs...)
		return ctx
	}
	if (len(meta) > 0 || len(header) > 0) && !trace.SpanContextFromContext(ctx).IsValid() {
		ctx = o.remoteParent(ctx, meta, header)
	}
	ctx, s := o.tracer.Start(ctx, name, serverKind, trace.WithTimestamp(c.begin), trace.WithAttributes(attrs...))
	c.own(s)
	return ctx
}

// own makes s, a span this Recording started (and ends), the call's, and
// keeps its ids for the log line.
func (c *Recording) own(s trace.Span) {
	c.span, c.owned = s, true
	if sc := s.SpanContext(); c.o.logger != nil && sc.IsValid() {
		c.traceIDs = traceIDText(sc)
	}
}

// remoteParent returns ctx with the trace context the request carries: in
// its _meta, or else in its HTTP header.
func (o *Observer) remoteParent(ctx context.Context, meta map[string]any, header http.Header) context.Context {
	if len(meta) > 0 {
		ctx = o.prop.Extract(ctx, MetaCarrier(meta))
	}
	if !trace.SpanContextFromContext(ctx).IsValid() && len(header) > 0 {
		ctx = o.prop.Extract(ctx, propagation.HeaderCarrier(header))
	}
	return ctx
}

// serverKind is built once: as an interface value it would cost an
// allocation per call.
var serverKind = trace.WithSpanKind(trace.SpanKindServer)

// nameAttr is the log line's attribute naming the target: the tool, the
// resource URI or the prompt.
func (c *Recording) nameAttr() slog.Attr {
	if c.kind == kindTool {
		return slog.String(semconv.KeyTool, c.tool)
	}
	return slog.String(requestNames[c.kind].logKey, c.tool)
}

// message is the log line's message.
func (c *Recording) message() string {
	if c.kind == kindTool {
		return semconv.MsgToolCall
	}
	return requestNames[c.kind].message
}

// durationOption is the attributes of the duration metric: the method, the
// tool or prompt, and the error type.
func (c *Recording) durationOption(errType string) metric.RecordOption {
	if c.kind == kindTool {
		return c.o.durationAttrs(c.metricToolName(), errType)
	}
	n := &requestNames[c.kind]
	kv := make([]attribute.KeyValue, 0, 3)
	kv = append(kv, attribute.String(semconv.AttrMethodName, n.method))
	// A prompt's name is bounded by the server's prompts; a URI is not.
	if c.kind == kindPrompt && c.tool != "" {
		kv = append(kv, attribute.String(n.attr, c.tool))
	}
	if errType != "" {
		kv = append(kv, attribute.String(semconv.AttrErrorType, errType))
	}
	return metric.WithAttributes(kv...)
}

// panicOption is the attributes of the panic counter.
func (c *Recording) panicOption() metric.AddOption {
	if c.kind == kindTool {
		return metric.WithAttributes(attribute.String(semconv.AttrToolName, c.tool))
	}
	return metric.WithAttributes(attribute.String(semconv.AttrMethodName, requestNames[c.kind].method))
}
