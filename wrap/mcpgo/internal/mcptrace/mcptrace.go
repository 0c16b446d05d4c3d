// Package mcptrace is mcp-go's tracing interfaces (tracing.MetaPropagator,
// tracing.Propagator, tracing.Tracer) backed by an Observer's
// OpenTelemetry propagator and tracer: what mcpgo.MetaPropagator,
// HTTPPropagator and Tracer return.
package mcptrace

import (
	"context"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/tracing"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/mcpgoerr"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
)

// Meta and HTTP hold the Observer, not its propagator:
// a one-pointer struct becomes an interface value without an allocation,
// which a server built per request would pay for.
// Meta is mcpgo.MetaPropagator.
type Meta struct{ O *obs.Observer }

// InjectMeta is mcp-go's InjectMeta.
func (m Meta) InjectMeta(ctx context.Context, meta *mcp.Meta) *mcp.Meta {
	carrier := propagation.MapCarrier{}
	m.O.Propagator().Inject(ctx, carrier)
	if len(carrier) == 0 {
		return meta
	}
	if meta == nil {
		meta = &mcp.Meta{}
	}
	if meta.AdditionalFields == nil {
		meta.AdditionalFields = make(map[string]any, len(carrier))
	}
	for k, v := range carrier {
		meta.AdditionalFields[k] = v
	}
	return meta
}

// ExtractMeta is mcp-go's ExtractMeta.
func (m Meta) ExtractMeta(ctx context.Context, meta *mcp.Meta) context.Context {
	if meta == nil || len(meta.AdditionalFields) == 0 {
		return ctx
	}
	return m.O.Propagator().Extract(ctx, obs.MetaCarrier(meta.AdditionalFields))
}

// HTTP is mcpgo.HTTPPropagator.
type HTTP struct{ O *obs.Observer }

// Inject is mcp-go's Inject.
func (h HTTP) Inject(ctx context.Context, headers http.Header) {
	h.O.Propagator().Inject(ctx, propagation.HeaderCarrier(headers))
}

// Extract is mcp-go's Extract.
func (h HTTP) Extract(ctx context.Context, headers http.Header) context.Context {
	if trace.SpanContextFromContext(ctx).IsValid() || len(headers) == 0 {
		return ctx
	}
	return h.O.Propagator().Extract(ctx, propagation.HeaderCarrier(headers))
}

// Tracer is mcpgo.Tracer.
type Tracer struct{ O *obs.Observer }

// Start is mcp-go's Start.
func (t Tracer) Start(ctx context.Context, name string, kind tracing.SpanKind, attrs ...tracing.Attribute) (context.Context, tracing.Span) {
	tracer := t.O.Tracer()
	if tracer == nil {
		return tracing.NoopTracer().Start(ctx, name, kind, attrs...)
	}
	method, isMessage := strings.CutPrefix(name, "mcp.")
	spanName := name
	if isMessage {
		spanName = method
	}
	sk := spanKind(kind)
	kv := make([]attribute.KeyValue, 0, len(attrs)+1)
	for _, a := range attrs {
		kv = append(kv, attribute.String(semconvKey(a.Key), a.Value))
	}
	ctx, s := tracer.Start(ctx, spanName, trace.WithSpanKind(sk), trace.WithAttributes(kv...))
	sp := &mcpSpan{s: s, o: t.O, toolsCall: isMessage && method == string(mcp.MethodToolsCall) && sk == trace.SpanKindServer}
	if sp.toolsCall {
		ctx = obs.ContextWithServerSpan(ctx, s)
	}
	return tracing.ContextWithSpan(ctx, sp), sp
}

// spanKind is OpenTelemetry's kind for mcp-go's.
func spanKind(kind tracing.SpanKind) trace.SpanKind {
	switch kind {
	case tracing.SpanKindServer:
		return trace.SpanKindServer
	case tracing.SpanKindClient:
		return trace.SpanKindClient
	}
	return trace.SpanKindInternal
}

func semconvKey(k string) string {
	switch k {
	case "mcp.method":
		return semconv.AttrMethodName
	case "mcp.tool.name":
		return semconv.AttrToolName
	}
	return k
}

type mcpSpan struct {
	s         trace.Span
	o         *obs.Observer
	toolsCall bool
}

// SetAttributes is mcp-go's SetAttributes.
func (m *mcpSpan) SetAttributes(attrs ...tracing.Attribute) {
	for _, a := range attrs {
		k := semconvKey(a.Key)
		if m.toolsCall && k == semconv.AttrToolName {
			m.s.SetName(semconv.MethodToolsCall + " " + m.o.OperatorText(a.Value))
		}
		m.s.SetAttributes(attribute.String(k, a.Value))
	}
}

// RecordError records what the model may read of err (its public message,
// else its code), never its text: mcp-go's spans run inside the chain and
// see a handler's raw error, which can hold the call's secrets; the call's
// own span carries the cause, scrubbed with the call's secret values.
func (m *mcpSpan) RecordError(err error) {
	if err == nil {
		return
	}
	m.s.AddEvent(semconv.EventException, trace.WithAttributes(attribute.String(semconv.AttrExceptionMessage, publicText(err))))
}

// SetStatus keeps the status code; an error's description is replaced by
// what publicText shows, for the reason RecordError gives.
func (m *mcpSpan) SetStatus(code tracing.StatusCode, _ string) {
	switch code {
	case tracing.StatusError:
		m.s.SetStatus(codes.Error, "handler failed")
	case tracing.StatusOK:
		m.s.SetStatus(codes.Ok, "")
	}
}

// publicText is the part of err the model may read.
func publicText(err error) (s string) {
	defer func() {
		if recover() != nil {
			s = "internal"
		}
	}()
	e := errs.From(mcpgoerr.Mark(err))
	if e.Code().Public() && e.Message() != "" {
		return e.Message()
	}
	return e.Code().String()
}

// End is mcp-go's End.
func (m *mcpSpan) End() { m.s.End() }
