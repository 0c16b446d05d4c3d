package observe

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/tracing"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ServerOptions returns the mcp-go server options that connect a server to
// the Observer: the hook that records each tools/call's JSON-RPC request id
// (only hooks can see it), and the propagators that make trace context in
// params._meta and in HTTP headers the parent of the call's span. Give them
// after any server.WithHooks, which would replace the hook.
//
// For spans of the other methods (initialize, tools/list, …) add
// server.WithTracer(o.MCPTracer()) as well; a tools/call then still has one
// server span, named and attributed per the semantic conventions.
func (o *Observer) ServerOptions() []server.ServerOption {
	return []server.ServerOption{
		func(s *server.MCPServer) {
			h := s.GetHooks()
			if h == nil {
				h = &server.Hooks{}
				server.WithHooks(h)(s)
			}
			o.AddHooks(h)
		},
		server.WithMetaPropagator(o.MetaPropagator()),
		server.WithPropagator(o.HTTPPropagator()),
	}
}

// AddHooks registers on h the hook that records JSON-RPC request ids, for
// servers that build their own server.Hooks.
func (o *Observer) AddHooks(h *server.Hooks) {
	h.AddBeforeCallTool(o.beforeCallTool)
	h.AddAfterCallTool(func(ctx context.Context, _ any, _ *mcp.CallToolRequest, _ any) { o.forget(ctx) })
	h.AddOnError(func(ctx context.Context, _ any, method mcp.MCPMethod, _ any, _ error) {
		if method == mcp.MethodToolsCall {
			o.forget(ctx)
		}
	})
}

// beforeCallTool keys the request id by the request context's Done channel:
// mcp-go gives the hooks and the middleware chain the same context, and
// calls the after-call or error hook, which removes the entry, once the
// call is answered. (A context.AfterFunc did the same at twice the cost.)
func (o *Observer) beforeCallTool(ctx context.Context, id any, _ *mcp.CallToolRequest) {
	done := ctx.Done()
	if done == nil {
		return
	}
	s := formatRequestID(id)
	if s == "" {
		return
	}
	o.ids.Store(done, s)
}

// forget removes the request id recorded for ctx's call.
func (o *Observer) forget(ctx context.Context) {
	if done := ctx.Done(); done != nil {
		o.ids.Delete(done)
	}
}

func (o *Observer) requestID(ctx context.Context) string {
	done := ctx.Done()
	if done == nil {
		return ""
	}
	if v, ok := o.ids.Load(done); ok {
		return v.(string)
	}
	return ""
}

func formatRequestID(id any) string {
	switch v := id.(type) {
	case nil:
		return ""
	case mcp.RequestId:
		if v.IsNil() {
			return ""
		}
		return formatRequestID(v.Value())
	case *mcp.RequestId:
		if v == nil {
			return ""
		}
		return formatRequestID(*v)
	case string:
		return v
	case int64:
		return strconv.FormatInt(v, 10)
	case float64:
		if v == float64(int64(v)) {
			return strconv.FormatInt(int64(v), 10)
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprint(id)
}

// MetaPropagator returns an OpenTelemetry-backed mcp-go
// tracing.MetaPropagator: traceparent, tracestate and baggage as unprefixed
// keys of params._meta, for server.WithMetaPropagator and
// client.WithMetaPropagator.
func (o *Observer) MetaPropagator() tracing.MetaPropagator { return metaPropagator{o.prop} }

type metaPropagator struct{ p propagation.TextMapPropagator }

func (m metaPropagator) InjectMeta(ctx context.Context, meta *mcp.Meta) *mcp.Meta {
	carrier := propagation.MapCarrier{}
	m.p.Inject(ctx, carrier)
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
	return m.p.Extract(ctx, metaCarrier(meta.AdditionalFields))
}

// HTTPPropagator returns an OpenTelemetry-backed mcp-go tracing.Propagator
// for HTTP headers, for server.WithPropagator and client.WithPropagator.
func (o *Observer) HTTPPropagator() tracing.Propagator { return httpPropagator{o.prop} }

type httpPropagator struct{ p propagation.TextMapPropagator }

func (h httpPropagator) Inject(ctx context.Context, headers http.Header) {
	h.p.Inject(ctx, propagation.HeaderCarrier(headers))
}

func (h httpPropagator) Extract(ctx context.Context, headers http.Header) context.Context {
	if trace.SpanContextFromContext(ctx).IsValid() || len(headers) == 0 {
		return ctx
	}
	return h.p.Extract(ctx, propagation.HeaderCarrier(headers))
}

// MCPTracer returns an OpenTelemetry-backed mcp-go tracing.Tracer writing to
// the Observer's tracer provider, for server.WithTracer and
// client.WithTracer. mcp-go's "mcp.<method>" spans are named "<method>"
// and its attributes renamed to the semantic conventions' keys; the
// tools/call server span is the one the Observer completes, so there is
// never a second server span for a call. Status descriptions and recorded
// errors are redacted.
func (o *Observer) MCPTracer() tracing.Tracer { return mcpTracer{o} }

type mcpTracer struct{ o *Observer }

func (t mcpTracer) Start(ctx context.Context, name string, kind tracing.SpanKind, attrs ...tracing.Attribute) (context.Context, tracing.Span) {
	if t.o.tracer == nil {
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
	ctx, s := t.o.tracer.Start(ctx, spanName, trace.WithSpanKind(sk), trace.WithAttributes(kv...))
	sp := &mcpSpan{s: s, o: t.o, toolsCall: isMessage && method == string(mcp.MethodToolsCall) && sk == trace.SpanKindServer}
	if sp.toolsCall {
		ctx = context.WithValue(ctx, serverSpanKey{}, s)
	}
	return tracing.ContextWithSpan(ctx, sp), sp
}

func semconvKey(k string) string {
	switch k {
	case "mcp.method":
		return AttrMethodName
	case "mcp.tool.name":
		return AttrToolName
	}
	return k
}

type mcpSpan struct {
	s         trace.Span
	o         *Observer
	toolsCall bool
}

func (m *mcpSpan) SetAttributes(attrs ...tracing.Attribute) {
	for _, a := range attrs {
		k := semconvKey(a.Key)
		if m.toolsCall && k == AttrToolName {
			m.s.SetName(MethodToolsCall + " " + a.Value)
		}
		m.s.SetAttributes(attribute.String(k, a.Value))
	}
}

func (m *mcpSpan) RecordError(err error) {
	if err == nil {
		return
	}
	m.s.AddEvent("exception", trace.WithAttributes(attribute.String("exception.message", m.o.red.String(err.Error()))))
}

func (m *mcpSpan) SetStatus(code tracing.StatusCode, description string) {
	switch code {
	case tracing.StatusError:
		m.s.SetStatus(codes.Error, m.o.red.String(description))
	case tracing.StatusOK:
		m.s.SetStatus(codes.Ok, "")
	}
}

func (m *mcpSpan) End() { m.s.End() }
