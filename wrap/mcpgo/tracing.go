package mcpgo

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
	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/mcpgoerr"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// MetaPropagator returns an OpenTelemetry-backed mcp-go
// tracing.MetaPropagator with w's propagator (wrap.WithTelemetry's, W3C
// trace context plus baggage by default): traceparent, tracestate and
// baggage as unprefixed keys of params._meta, for server.WithMetaPropagator
// (Attach adds it) and client.WithMetaPropagator. A nil w means
// wrap.New().
func MetaPropagator(w *wrap.Wrapper) tracing.MetaPropagator {
	return metaPropagator{adapter.Observer(orNew(w))}
}

// metaPropagator and httpPropagator hold the Observer, not its propagator:
// a one-pointer struct becomes an interface value without an allocation,
// which a server built per request would pay for.
type metaPropagator struct{ o *obs.Observer }

func (m metaPropagator) InjectMeta(ctx context.Context, meta *mcp.Meta) *mcp.Meta {
	carrier := propagation.MapCarrier{}
	m.o.Propagator().Inject(ctx, carrier)
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

func (m metaPropagator) ExtractMeta(ctx context.Context, meta *mcp.Meta) context.Context {
	if meta == nil || len(meta.AdditionalFields) == 0 {
		return ctx
	}
	return m.o.Propagator().Extract(ctx, obs.MetaCarrier(meta.AdditionalFields))
}

// HTTPPropagator returns an OpenTelemetry-backed mcp-go tracing.Propagator
// for HTTP headers with w's propagator, as MetaPropagator, for
// server.WithPropagator (Attach adds it) and client.WithPropagator. A nil
// w means wrap.New().
func HTTPPropagator(w *wrap.Wrapper) tracing.Propagator {
	return httpPropagator{adapter.Observer(orNew(w))}
}

type httpPropagator struct{ o *obs.Observer }

func (h httpPropagator) Inject(ctx context.Context, headers http.Header) {
	h.o.Propagator().Inject(ctx, propagation.HeaderCarrier(headers))
}

func (h httpPropagator) Extract(ctx context.Context, headers http.Header) context.Context {
	if trace.SpanContextFromContext(ctx).IsValid() || len(headers) == 0 {
		return ctx
	}
	return h.o.Propagator().Extract(ctx, propagation.HeaderCarrier(headers))
}

// Tracer returns an OpenTelemetry-backed mcp-go tracing.Tracer writing to
// w's tracer provider (wrap.WithTelemetry's), for server.WithTracer and
// client.WithTracer. mcp-go's "mcp.<method>" spans are named "<method>"
// and its attributes renamed to the semantic conventions' keys; the
// tools/call server span is the one the chain completes, so there is
// never a second server span for a call. Status descriptions and recorded
// errors are redacted.
// Without telemetry on w it starts no spans. A nil w means wrap.New().
func Tracer(w *wrap.Wrapper) tracing.Tracer { return mcpTracer{adapter.Observer(orNew(w))} }

type mcpTracer struct{ o *obs.Observer }

func (t mcpTracer) Start(ctx context.Context, name string, kind tracing.SpanKind, attrs ...tracing.Attribute) (context.Context, tracing.Span) {
	tracer := t.o.Tracer()
	if tracer == nil {
		return tracing.NoopTracer().Start(ctx, name, kind, attrs...)
	}
	method, isMessage := strings.CutPrefix(name, "mcp.")
	spanName := name
	if isMessage {
		spanName = method
	}
	var sk trace.SpanKind
	switch kind {
	case tracing.SpanKindServer:
		sk = trace.SpanKindServer
	case tracing.SpanKindClient:
		sk = trace.SpanKindClient
	default:
		sk = trace.SpanKindInternal
	}
	kv := make([]attribute.KeyValue, 0, len(attrs)+1)
	for _, a := range attrs {
		kv = append(kv, attribute.String(semconvKey(a.Key), a.Value))
	}
	ctx, s := tracer.Start(ctx, spanName, trace.WithSpanKind(sk), trace.WithAttributes(kv...))
	sp := &mcpSpan{s: s, o: t.o, toolsCall: isMessage && method == string(mcp.MethodToolsCall) && sk == trace.SpanKindServer}
	if sp.toolsCall {
		ctx = obs.ContextWithServerSpan(ctx, s)
	}
	return tracing.ContextWithSpan(ctx, sp), sp
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

func (m *mcpSpan) End() { m.s.End() }
