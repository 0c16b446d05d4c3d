package observe

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/observe/internal/semconv"
)

// maxURIBytes caps a resource URI on the log line and the span.
const maxURIBytes = 1 << 10

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

// StartResource begins observing a resources/read: the "resources/read"
// SERVER span with mcp.resource.uri (credentials and secret-shaped parts of
// the URI redacted), parented like a tool call's span (the context's span,
// else params._meta, else the HTTP headers). End it with Recording.End;
// Report.JSONRPCCode is the error.type of a failed read. The variables of
// a matched resource template are logged as its arguments.
func (o *Observer) StartResource(ctx context.Context, req mcp.ReadResourceRequest, callID string) (context.Context, *Recording) {
	c := &Recording{o: o, begin: time.Now(), kind: kindResource, callID: callID, header: req.Header,
		tool: o.red.URI(req.Params.URI)}
	if len(req.Params.Arguments) > 0 {
		c.args = req.Params.Arguments
	}
	c.readSession(ctx, req.Header)
	return c.startRequestSpan(ctx, semconv.MethodResourcesRead, req.Params.Meta), c
}

// StartPrompt begins observing a prompts/get: the "prompts/get {name}"
// SERVER span with gen_ai.prompt.name, parented like a tool call's span.
// The prompt's arguments are logged redacted, like a tool's.
func (o *Observer) StartPrompt(ctx context.Context, req mcp.GetPromptRequest, callID string) (context.Context, *Recording) {
	c := &Recording{o: o, begin: time.Now(), kind: kindPrompt, callID: callID, header: req.Header,
		tool: safeText(capString(req.Params.Name, maxNameBytes))}
	if len(req.Params.Arguments) > 0 {
		c.args = req.Params.Arguments
	}
	c.readSession(ctx, req.Header)
	name := semconv.MethodPromptsGet
	if c.tool != "" {
		name += " " + c.tool
	}
	return c.startRequestSpan(ctx, name, req.Params.Meta), c
}

func (c *Recording) startRequestSpan(ctx context.Context, name string, meta *mcp.Meta) context.Context {
	if c.o.tracer == nil {
		return ctx
	}
	attrs := make([]attribute.KeyValue, 0, 7)
	n := &requestNames[c.kind]
	attrs = append(attrs, attribute.String(semconv.AttrMethodName, n.method), attribute.String(n.attr, c.tool))
	return c.openSpan(ctx, name, meta, c.header, c.requestAttrs(attrs, c.header))
}

// readSession reads the MCP session and protocol version of the request.
func (c *Recording) readSession(ctx context.Context, header http.Header) {
	if s := server.ClientSessionFromContext(ctx); s != nil {
		c.sessionID = s.SessionID()
	}
	c.protocol = server.RequestProtocolVersion(ctx)
	if c.protocol == "" && header != nil {
		c.protocol = safeText(capString(header.Get(server.HeaderKeyProtocolVersion), maxNameBytes))
	}
}

// openSpan starts the request's SERVER span as a child of the context's
// span, else of the trace context in params._meta, else of the HTTP
// headers; when mcp-go's WithTracer runs with MCPTracer, its server span
// for the request is renamed and used instead of starting a second one.
func (c *Recording) openSpan(ctx context.Context, name string, meta *mcp.Meta, header http.Header, attrs []attribute.KeyValue) context.Context {
	o := c.o
	if s, ok := ctx.Value(serverSpanKey{}).(trace.Span); ok && s.IsRecording() {
		c.span = s
		s.SetName(name)
		s.SetAttributes(attrs...)
		return ctx
	}
	if !trace.SpanContextFromContext(ctx).IsValid() {
		if meta != nil && len(meta.AdditionalFields) > 0 {
			ctx = o.prop.Extract(ctx, metaCarrier(meta.AdditionalFields))
		}
		if !trace.SpanContextFromContext(ctx).IsValid() && len(header) > 0 {
			ctx = o.prop.Extract(ctx, propagation.HeaderCarrier(header))
		}
	}
	ctx, c.span = o.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithTimestamp(c.begin), trace.WithAttributes(attrs...))
	c.owned = true
	return ctx
}

// requestAttrs appends the attributes every observed request has.
func (c *Recording) requestAttrs(attrs []attribute.KeyValue, header http.Header) []attribute.KeyValue {
	attrs = append(attrs, attribute.String(semconv.AttrNetworkTransport, c.transport(header)))
	if c.callID != "" {
		attrs = append(attrs, attribute.String(semconv.AttrCallID, c.callID))
	}
	if c.requestID != "" {
		attrs = append(attrs, attribute.String(semconv.AttrRequestID, c.requestID))
	}
	if c.sessionID != "" {
		attrs = append(attrs, attribute.String(semconv.AttrSessionID, c.sessionID))
	}
	if c.protocol != "" {
		attrs = append(attrs, attribute.String(semconv.AttrProtocolVersion, c.protocol))
	}
	return attrs
}

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

// URI returns a resource URI safe to log: capped, with the password of
// its user info, secret query parameters and secret-shaped text redacted.
func (r *Redactor) URI(uri string) string {
	return safeText(r.orDefault().String(capString(uri, maxURIBytes)))
}
