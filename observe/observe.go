package observe

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpwrap/mcpwrap/errs"
)

// ScopeName is the instrumentation scope of every span and metric.
const ScopeName = "github.com/mcpwrap/mcpwrap/observe"

// ScopeVersion is the version of the instrumentation scope.
const ScopeVersion = "0.1.0"

// Attribute keys: the OpenTelemetry MCP semantic conventions, then ours.
const (
	AttrMethodName       = "mcp.method.name"
	AttrToolName         = "gen_ai.tool.name"
	AttrOperationName    = "gen_ai.operation.name"
	AttrRequestID        = "jsonrpc.request.id"
	AttrSessionID        = "mcp.session.id"
	AttrProtocolVersion  = "mcp.protocol.version"
	AttrNetworkTransport = "network.transport"
	AttrErrorType        = "error.type"
	AttrRPCStatusCode    = "rpc.response.status_code"
	AttrToolArguments    = "gen_ai.tool.call.arguments"
	AttrToolResult       = "gen_ai.tool.call.result"
	AttrErrorCode        = "mcpwrap.error.code"
	AttrOutcome          = "mcpwrap.outcome"
	AttrCallID           = "mcpwrap.call.id"
	AttrAttempts         = "mcpwrap.attempts"
	AttrEventName        = "mcpwrap.event"
)

// Attribute values.
const (
	MethodToolsCall      = "tools/call"
	OperationExecuteTool = "execute_tool"
	ErrorTypeToolError   = "tool_error"
)

// Metric names.
const (
	MetricOperationDuration = "mcp.server.operation.duration"
	MetricRetries           = "mcpwrap.tool.retries"
	MetricReconnects        = "mcpwrap.tool.reconnects"
	MetricPanics            = "mcpwrap.tool.panics"
)

// DurationBuckets are the semantic conventions' bucket boundaries for
// mcp.server.operation.duration, in seconds.
var DurationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Event names given to Call.Event. Retry and Reconnect also count in
// MetricRetries and MetricReconnects.
const (
	EventRetry              = "retry"
	EventReconnect          = "reconnect"
	EventBreakerStateChange = "breaker_state_change"
	EventPanic              = "panic"
)

// Log line keys.
const (
	KeyTool            = "tool"
	KeyCallID          = "call_id"
	KeyRequestID       = "request_id"
	KeySessionID       = "session_id"
	KeyProtocolVersion = "protocol_version"
	KeyArguments       = "arguments"
	KeyDurationMS      = "duration_ms"
	KeyOutcome         = "outcome"
	KeyAttempts        = "attempts"
	KeyCode            = "code"
	KeyErrorType       = "error_type"
	KeyCause           = "cause"
	KeyStack           = "stack"
	KeyTraceID         = "trace_id"
	KeySpanID          = "span_id"
	KeyEvent           = "event"
	KeyDiscarded       = "result_discarded"
)

// Observer turns tool calls into log lines, spans and metrics. Tracer,
// meter and instruments are created once, in New. An Observer is safe for
// concurrent use.
type Observer struct {
	tracer     trace.Tracer // nil: no spans
	metrics    bool
	duration   metric.Float64Histogram
	retries    metric.Int64Counter
	reconnects metric.Int64Counter
	panics     metric.Int64Counter
	logger     *slog.Logger
	prop       propagation.TextMapPropagator
	red        *Redactor
	tp         trace.TracerProvider
	mp         metric.MeterProvider
	cfg        config
	// ids and attrSets are pointers so that WithSecrets' copies share them
	// with the Observer whose hooks fill them.
	ids      *sync.Map // JSON-RPC request id by the request context's Done channel
	attrSets *sync.Map // durationKey → metric.RecordOption
}

// New returns an Observer. With no options it logs nothing and uses the
// global OpenTelemetry providers, which are no-ops unless the program
// installed some; see Setup for providers configured from OTEL_* variables.
func New(opts ...Option) *Observer {
	c := config{maxArgBytes: DefaultMaxArgumentBytes}
	for _, opt := range opts {
		if opt != nil {
			opt(&c)
		}
	}
	o := &Observer{cfg: c, logger: c.logger, red: NewRedactor(c.secretNames...), prop: c.propagator,
		ids: new(sync.Map), attrSets: new(sync.Map)}
	if o.prop == nil {
		o.prop = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	o.tp = c.tp
	if o.tp == nil {
		o.tp = otel.GetTracerProvider()
	}
	if _, noop := o.tp.(tracenoop.TracerProvider); !noop && !c.noTracing {
		o.tracer = o.tp.Tracer(ScopeName, trace.WithInstrumentationVersion(ScopeVersion))
	}
	o.mp = c.mp
	if o.mp == nil {
		o.mp = otel.GetMeterProvider()
	}
	if _, noop := o.mp.(metricnoop.MeterProvider); !noop && !c.noMetrics {
		o.initMetrics()
	}
	return o
}

// WithSecrets returns an Observer that also redacts the named parameters and
// shares everything else with o: providers, instruments and the request ids
// recorded by o's hooks. wrap.Typed uses it with the names of the fields
// tagged mcpwrap:"secret". It is called at construction, not per call.
func (o *Observer) WithSecrets(names ...string) *Observer {
	if len(names) == 0 {
		return o
	}
	d := *o
	d.cfg.secretNames = append(slices.Clip(o.cfg.secretNames), names...)
	d.red = NewRedactor(d.cfg.secretNames...)
	return &d
}

func (o *Observer) initMetrics() {
	m := o.mp.Meter(ScopeName, metric.WithInstrumentationVersion(ScopeVersion))
	var err error
	o.duration, err = m.Float64Histogram(MetricOperationDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of MCP requests handled by the server."),
		metric.WithExplicitBucketBoundaries(DurationBuckets...))
	err = errors.Join(err, func() (e error) {
		o.retries, e = m.Int64Counter(MetricRetries, metric.WithUnit("{retry}"),
			metric.WithDescription("Tool handler attempts repeated after a retryable failure."))
		return e
	}(), func() (e error) {
		o.reconnects, e = m.Int64Counter(MetricReconnects, metric.WithUnit("{reconnect}"),
			metric.WithDescription("Upstream clients reconnected during tool calls."))
		return e
	}(), func() (e error) {
		o.panics, e = m.Int64Counter(MetricPanics, metric.WithUnit("{panic}"),
			metric.WithDescription("Tool handler panics recovered."))
		return e
	}())
	if err != nil {
		otel.Handle(err)
	}
	o.metrics = o.duration != nil && o.retries != nil && o.reconnects != nil && o.panics != nil
}

// Logger returns the logger the Observer writes to, or nil.
func (o *Observer) Logger() *slog.Logger { return o.logger }

// Redactor returns the Redactor the Observer applies.
func (o *Observer) Redactor() *Redactor { return o.red }

// Flush exports what the tracer and meter providers have buffered, for
// providers that can (the SDK's can). It has the shape of a shutdown
// function: the fatal path calls it before the process exits.
func (o *Observer) Flush(ctx context.Context) error {
	type flusher interface{ ForceFlush(context.Context) error }
	var err error
	if f, ok := o.tp.(flusher); ok {
		err = f.ForceFlush(ctx)
	}
	if f, ok := o.mp.(flusher); ok {
		err = errors.Join(err, f.ForceFlush(ctx))
	}
	return err
}

type durationKey struct{ tool, errType string }

// durationAttrs returns the metric attributes of a tool and error type,
// built once per pair: tool names are a small, fixed set.
func (o *Observer) durationAttrs(tool, errType string) metric.RecordOption {
	k := durationKey{tool, errType}
	if v, ok := o.attrSets.Load(k); ok {
		return v.(metric.RecordOption)
	}
	kv := []attribute.KeyValue{attribute.String(AttrMethodName, MethodToolsCall), attribute.String(AttrToolName, tool)}
	if errType != "" {
		kv = append(kv, attribute.String(AttrErrorType, errType))
	}
	opt := metric.WithAttributeSet(attribute.NewSet(kv...))
	o.attrSets.Store(k, opt)
	return opt
}

type serverSpanKey struct{}

// Recording is one tool call being observed. Its methods are safe for
// concurrent use; a nil *Recording does nothing, which is how the no-telemetry path stays
// free.
type Recording struct {
	o         *Observer
	span      trace.Span // nil without tracing
	owned     bool       // we started the span, so we end it
	begin     time.Time
	tool      string
	callID    string
	requestID string
	sessionID string
	protocol  string
	args      any
	rawArgs   []byte // the arguments as the client sent them, when known
	header    http.Header

	once      sync.Once
	argJSON   string // redacted, capped
	truncated bool
	secrets   []string
}

// Start begins observing a call: it reads the parent trace context (the
// context's span, else params._meta, else HTTP headers), starts the
// "tools/call {tool}" SERVER span and returns a context carrying it, so the
// handler's own spans become its children. When mcp-go's WithTracer is
// installed with MCPTracer, its server span for this request is used
// instead of starting a second one.
func (o *Observer) Start(ctx context.Context, req mcp.CallToolRequest, callID string) (context.Context, *Recording) {
	c := &Recording{o: o, begin: time.Now(), tool: req.Params.Name, callID: callID, header: req.Header}
	c.args = req.Params.Arguments
	c.rawArgs = req.Params.RawArguments
	if c.args == nil && len(req.Params.RawArguments) > 0 {
		c.args = req.Params.RawArguments
	}
	c.requestID = o.requestID(ctx)
	if s := server.ClientSessionFromContext(ctx); s != nil {
		c.sessionID = s.SessionID()
	}
	c.protocol = server.RequestProtocolVersion(ctx)
	if c.protocol == "" && req.Header != nil {
		c.protocol = req.Header.Get(server.HeaderKeyProtocolVersion)
	}
	if o.tracer == nil {
		return ctx, c
	}
	attrs := c.startAttrs(req)
	if s, ok := ctx.Value(serverSpanKey{}).(trace.Span); ok && s.IsRecording() {
		c.span = s
		s.SetName(MethodToolsCall + " " + c.tool)
		s.SetAttributes(attrs...)
		return ctx, c
	}
	if !trace.SpanContextFromContext(ctx).IsValid() {
		if req.Params.Meta != nil && len(req.Params.Meta.AdditionalFields) > 0 {
			ctx = o.prop.Extract(ctx, metaCarrier(req.Params.Meta.AdditionalFields))
		}
		if !trace.SpanContextFromContext(ctx).IsValid() && len(req.Header) > 0 {
			ctx = o.prop.Extract(ctx, propagation.HeaderCarrier(req.Header))
		}
	}
	ctx, c.span = o.tracer.Start(ctx, MethodToolsCall+" "+c.tool,
		trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	c.owned = true
	return ctx, c
}

func (c *Recording) startAttrs(req mcp.CallToolRequest) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 10)
	attrs = append(attrs,
		attribute.String(AttrMethodName, MethodToolsCall),
		attribute.String(AttrToolName, c.tool),
		attribute.String(AttrOperationName, OperationExecuteTool),
		attribute.String(AttrNetworkTransport, c.transport(req)),
	)
	if c.callID != "" {
		attrs = append(attrs, attribute.String(AttrCallID, c.callID))
	}
	if c.requestID != "" {
		attrs = append(attrs, attribute.String(AttrRequestID, c.requestID))
	}
	if c.sessionID != "" {
		attrs = append(attrs, attribute.String(AttrSessionID, c.sessionID))
	}
	if c.protocol != "" {
		attrs = append(attrs, attribute.String(AttrProtocolVersion, c.protocol))
	}
	if c.o.cfg.recordArgs {
		attrs = append(attrs, attribute.String(AttrToolArguments, c.arguments()))
	}
	return attrs
}

func (c *Recording) transport(req mcp.CallToolRequest) string {
	if t := c.o.cfg.transport; t != "" {
		return t
	}
	if len(req.Header) > 0 {
		return "tcp"
	}
	return "pipe"
}

// arguments renders the redacted, capped arguments once, and learns the
// secret values they (and the headers) hold, so free text can be scrubbed.
func (c *Recording) arguments() string {
	c.once.Do(func() {
		var found []string
		if len(c.header) > 0 {
			c.o.red.secretHeaders(c.header, &found)
		}
		if c.args != nil {
			var b []byte
			if len(c.rawArgs) > 0 && c.o.red.clean(c.args, 0) {
				// Nothing to redact: the client's own bytes are the log's,
				// without building a redacted copy and encoding it again.
				b = c.rawArgs
			} else {
				var err error
				b, err = json.Marshal(c.o.red.Value(c.args, &found))
				if err != nil {
					b, _ = json.Marshal(c.o.red.String(err.Error()))
				}
			}
			c.argJSON = capString(string(b), c.o.cfg.maxArgBytes)
			c.truncated = len(b) > c.o.cfg.maxArgBytes
		}
		c.secrets = found
	})
	return c.argJSON
}

func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…(truncated, " + strconv.Itoa(len(s)) + " bytes)"
}

// scrub redacts free text: secret-shaped values and any secret value seen
// in the arguments or headers.
func (c *Recording) scrub(s string) string {
	c.arguments()
	return c.o.red.scrub(s, c.secrets)
}

// Outcome is how a call ended, the value of the log line's "outcome" and
// of the span's mcpwrap.outcome: one of the constants below, or, for a
// failed call, the name of its errs.Code (CodeOutcome).
type Outcome string

// Outcomes that are not error codes.
const (
	OutcomeSuccess       Outcome = "success"
	OutcomeToolError     Outcome = "tool_error"
	OutcomeInputRequired Outcome = "input_required"
	OutcomePanic         Outcome = "panic"
	OutcomeProtocolError Outcome = "protocol_error"
)

// CodeOutcome is the outcome of a call that failed with code c.
func CodeOutcome(c errs.Code) Outcome { return Outcome(c.String()) }

// Report is how a call ended, as the caller of Start saw it.
type Report struct {
	// Outcome is the log line's outcome.
	Outcome Outcome
	// Err is the error behind a failed call, classified once by the caller
	// (operator-only; redacted before it is logged or recorded).
	Err *errs.Error
	// Attempts is how many times the handler ran.
	Attempts int
	// Discarded is set when the handler returned a result and an error.
	Discarded bool
	// Stack is the stack of a recovered panic.
	Stack []byte
	// Result is what the client receives, when it is a result.
	Result *mcp.CallToolResult
	// JSONRPCCode is non-zero when the call was answered with a JSON-RPC
	// error instead of a result.
	JSONRPCCode int
}

// ErrorType returns the semantic conventions' error.type: the JSON-RPC code
// for a protocol error, tool_error for an isError result, "" for success.
func (out *Report) ErrorType() string {
	switch {
	case out.JSONRPCCode != 0:
		return strconv.Itoa(out.JSONRPCCode)
	case out.Err != nil, out.Result != nil && out.Result.IsError:
		return ErrorTypeToolError
	}
	return ""
}

func (out *Report) level() slog.Level {
	if out.Err == nil {
		return slog.LevelInfo
	}
	switch out.Err.Code() {
	case errs.Internal, errs.Fatal:
		return slog.LevelError
	}
	return slog.LevelWarn
}

// End finishes the call: the span's status, attributes and end, the
// duration metric, and the log line.
func (c *Recording) End(ctx context.Context, out Report) {
	if c == nil {
		return
	}
	d := time.Since(c.begin)
	errType := out.ErrorType()
	var code string
	if out.Err != nil {
		code = out.Err.Code().String()
	}
	panicked := out.Stack != nil
	if c.span != nil {
		c.endSpan(&out, errType, code, panicked)
	}
	if c.o.metrics {
		c.o.duration.Record(ctx, d.Seconds(), c.o.durationAttrs(c.tool, errType))
		if panicked {
			c.o.panics.Add(ctx, 1, metric.WithAttributes(attribute.String(AttrToolName, c.tool)))
		}
	}
	c.log(ctx, &out, d, errType, code)
}

func (c *Recording) endSpan(out *Report, errType, code string, panicked bool) {
	s := c.span
	attrs := []attribute.KeyValue{
		attribute.String(AttrOutcome, string(out.Outcome)),
		attribute.Int(AttrAttempts, out.Attempts),
	}
	if errType != "" {
		attrs = append(attrs, attribute.String(AttrErrorType, errType))
	}
	if out.JSONRPCCode != 0 {
		attrs = append(attrs, attribute.Int(AttrRPCStatusCode, out.JSONRPCCode))
	}
	if code != "" {
		attrs = append(attrs, attribute.String(AttrErrorCode, code))
	}
	if c.o.cfg.recordResult && out.Result != nil {
		if b, err := json.Marshal(c.o.red.Value(out.Result, nil)); err == nil {
			attrs = append(attrs, attribute.String(AttrToolResult, c.scrub(capString(string(b), c.o.cfg.maxArgBytes))))
		}
	}
	s.SetAttributes(attrs...)
	if out.Err != nil {
		cause := c.scrub(out.Err.Error())
		if panicked {
			s.AddEvent(EventPanic, trace.WithAttributes(
				attribute.String("exception.type", "panic"),
				attribute.String("exception.message", cause),
				attribute.String("exception.stacktrace", c.scrub(string(out.Stack)))))
		} else {
			s.AddEvent("exception", trace.WithAttributes(
				attribute.String("exception.type", code),
				attribute.String("exception.message", cause)))
		}
	}
	if errType != "" {
		s.SetStatus(codes.Error, c.statusDescription(out, code))
	}
	if c.owned {
		s.End()
	}
}

// statusDescription is safe to show: the model-facing message for public
// codes, the code name otherwise.
func (c *Recording) statusDescription(out *Report, code string) string {
	switch {
	case out.JSONRPCCode != 0:
		return "JSON-RPC error " + strconv.Itoa(out.JSONRPCCode)
	case out.Err == nil:
		return "tool returned an error result"
	}
	e := out.Err
	if e.Code().Public() && e.Message() != "" {
		return c.scrub(e.Message())
	}
	return code
}

func (c *Recording) log(ctx context.Context, out *Report, d time.Duration, errType, code string) {
	l := c.o.logger
	if l == nil {
		return
	}
	level := out.level()
	if !l.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 18)
	attrs = append(attrs,
		slog.String(KeyTool, c.tool),
		slog.String(KeyCallID, c.callID),
		slog.String(KeyOutcome, string(out.Outcome)),
		slog.Float64(KeyDurationMS, float64(d.Microseconds())/1000),
		slog.Int(KeyAttempts, out.Attempts),
	)
	if c.requestID != "" {
		attrs = append(attrs, slog.String(KeyRequestID, c.requestID))
	}
	if c.sessionID != "" {
		attrs = append(attrs, slog.String(KeySessionID, c.sessionID))
	}
	if c.protocol != "" {
		attrs = append(attrs, slog.String(KeyProtocolVersion, c.protocol))
	}
	if c.o.cfg.maxArgBytes > 0 {
		if a := c.arguments(); a != "" {
			if !c.truncated {
				attrs = append(attrs, slog.Any(KeyArguments, json.RawMessage(a)))
			} else {
				attrs = append(attrs, slog.String(KeyArguments, a))
			}
		}
	}
	if errType != "" {
		attrs = append(attrs, slog.String(KeyErrorType, errType))
	}
	if out.Err != nil {
		attrs = append(attrs, slog.String(KeyCode, code), slog.String(KeyCause, c.scrub(out.Err.Error())))
	}
	if out.Stack != nil {
		attrs = append(attrs, slog.String(KeyStack, c.scrub(string(out.Stack))))
	}
	if out.Discarded {
		attrs = append(attrs, slog.Bool(KeyDiscarded, true))
	}
	attrs = appendTraceIDs(attrs, c.span)
	l.LogAttrs(ctx, level, "tool call", attrs...)
}

func appendTraceIDs(attrs []slog.Attr, s trace.Span) []slog.Attr {
	if s == nil {
		return attrs
	}
	sc := s.SpanContext()
	if !sc.IsValid() {
		return attrs
	}
	tid, sid := sc.TraceID(), sc.SpanID()
	return append(attrs, slog.String(KeyTraceID, hex.EncodeToString(tid[:])), slog.String(KeySpanID, hex.EncodeToString(sid[:])))
}

// Event records something that happened during the call (a retry, a
// reconnect, a breaker state change): a span event, a count for retries and
// reconnects, and a log line tied to the call id. String values of attrs
// are redacted.
func (c *Recording) Event(ctx context.Context, level slog.Level, name string, attrs ...slog.Attr) {
	if c == nil {
		return
	}
	if c.span != nil {
		kv := make([]attribute.KeyValue, 0, len(attrs))
		for _, a := range attrs {
			kv = append(kv, c.otelAttr(a))
		}
		c.span.AddEvent(name, trace.WithAttributes(kv...))
	}
	if c.o.metrics {
		switch name {
		case EventRetry:
			c.o.retries.Add(ctx, 1, metric.WithAttributes(attribute.String(AttrToolName, c.tool)))
		case EventReconnect:
			c.o.reconnects.Add(ctx, 1, metric.WithAttributes(attribute.String(AttrToolName, c.tool)))
		}
	}
	l := c.o.logger
	if l == nil || !l.Enabled(ctx, level) {
		return
	}
	all := make([]slog.Attr, 0, len(attrs)+5)
	all = append(all, slog.String(KeyTool, c.tool), slog.String(KeyCallID, c.callID), slog.String(KeyEvent, name))
	for _, a := range attrs {
		all = append(all, c.slogAttr(a))
	}
	all = appendTraceIDs(all, c.span)
	l.LogAttrs(ctx, level, "tool call event", all...)
}

func (c *Recording) slogAttr(a slog.Attr) slog.Attr {
	if c.o.red.IsSecretName(a.Key) {
		return slog.String(a.Key, Redacted)
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, c.scrub(v.String()))
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, c.scrub(err.Error()))
		}
		return slog.Any(a.Key, c.o.red.Value(v.Any(), nil))
	case slog.KindGroup:
		return slog.Any(a.Key, c.o.red.slogValue(v, nil, 0))
	}
	return slog.Attr{Key: a.Key, Value: v}
}

func (c *Recording) otelAttr(a slog.Attr) attribute.KeyValue { return c.o.otelAttr(a, c.scrub) }

// otelAttr converts a slog attribute for a span, redacting secret names and
// passing text through scrub.
func (o *Observer) otelAttr(a slog.Attr, scrub func(string) string) attribute.KeyValue {
	if o.red.IsSecretName(a.Key) {
		return attribute.String(a.Key, Redacted)
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindBool:
		return attribute.Bool(a.Key, v.Bool())
	case slog.KindInt64:
		return attribute.Int64(a.Key, v.Int64())
	case slog.KindUint64:
		return attribute.Int64(a.Key, int64(v.Uint64()))
	case slog.KindFloat64:
		return attribute.Float64(a.Key, v.Float64())
	case slog.KindDuration:
		return attribute.Float64(a.Key, v.Duration().Seconds())
	case slog.KindString:
		return attribute.String(a.Key, scrub(v.String()))
	}
	if err, ok := v.Any().(error); ok {
		return attribute.String(a.Key, scrub(err.Error()))
	}
	b, _ := json.Marshal(o.red.Value(v.Any(), nil))
	return attribute.String(a.Key, scrub(string(b)))
}

// Names of wrap/upstream's events that UpstreamEvent knows (observe does not
// import wrap; the names are that package's documented constants).
const (
	upstreamDial = "upstream.dial"
)

// AttrUpstream names the upstream on reconnect and breaker metrics.
const AttrUpstream = "mcpwrap.upstream"

// UpstreamEvent records an event of an upstream client; its signature is
// wrap/upstream's EventFunc, so upstream.WithEvents(obs.UpstreamEvent) wires
// a Holder in. The event goes to the span in ctx — the tool call's span when
// the reconnect or breaker change happens during a call — under its own name
// (once), and a reconnect (a
// dial after the first) counts in MetricReconnects. Logging stays with the
// holder's logger.
func (o *Observer) UpstreamEvent(ctx context.Context, name string, attrs ...slog.Attr) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		kv := make([]attribute.KeyValue, 0, len(attrs))
		for _, a := range attrs {
			kv = append(kv, o.otelAttr(a, o.red.String))
		}
		span.AddEvent(name, trace.WithAttributes(kv...))
	}
	if !o.metrics || name != upstreamDial {
		return
	}
	var upstream string
	var gen uint64
	for _, a := range attrs {
		switch a.Key {
		case "upstream":
			upstream = a.Value.String()
		case "generation":
			if v := a.Value.Resolve(); v.Kind() == slog.KindUint64 {
				gen = v.Uint64()
			}
		}
	}
	if gen > 1 {
		o.reconnects.Add(ctx, 1, metric.WithAttributes(attribute.String(AttrUpstream, upstream)))
	}
}

// Late logs a handler that finished after its call was answered (its
// timeout fired); err and stack are what it ended with.
func (c *Recording) Late(late time.Duration, err error, stack []byte) {
	if c == nil || c.o.logger == nil {
		return
	}
	attrs := []slog.Attr{
		slog.String(KeyTool, c.tool),
		slog.String(KeyCallID, c.callID),
		slog.Float64("late_ms", float64(late.Microseconds())/1000),
	}
	if err != nil {
		attrs = append(attrs, slog.String(KeyCause, c.scrub(err.Error())))
	}
	if stack != nil {
		attrs = append(attrs, slog.String(KeyStack, c.scrub(string(stack))))
	}
	attrs = appendTraceIDs(attrs, c.span)
	c.o.logger.LogAttrs(context.Background(), slog.LevelWarn, "tool finished after its call was answered; result dropped", attrs...)
}

// metaCarrier reads and writes trace context in params._meta.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
