package obs

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpwrap/mcpwrap/internal/redact"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
)

// Observer turns tool calls into log lines, spans and metrics. Tracer,
// meter and instruments are created once, in New. An Observer is safe for
// concurrent use.
type Observer struct {
	tracer     trace.Tracer // nil: no spans
	metrics    bool
	duration   metric.Float64Histogram
	retries    metric.Int64Counter
	repeated   metric.Int64Counter
	denials    metric.Int64Counter
	reconnects metric.Int64Counter
	panics     metric.Int64Counter
	logger     *slog.Logger
	prop       propagation.TextMapPropagator
	red        *redact.Redactor
	tp         trace.TracerProvider
	mp         metric.MeterProvider
	cfg        Config
	// calls and attrSets are pointers so that WithSecrets' copies share
	// them with the Observer whose hooks fill them.
	calls     *pendingCalls
	attrSets  *sync.Map // durationKey → metric.RecordOption
	attrCount *atomic.Int32
	linePC    *atomic.Uintptr // see logPC
	keyOrders *keyOrders      // the arguments' key order per tool; not shared with WithSecrets' copies
}

// defaultPropagator reads and writes W3C traceparent/tracestate plus
// baggage. Propagators keep no state, so one is shared.
var defaultPropagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// maxAttrSets bounds the remembered metric attribute sets.
const maxAttrSets = 1024

// apply runs the options, skipping nil ones.
func (c *Config) apply(opts []Option) {
	for _, opt := range opts {
		if opt != nil {
			opt(c)
		}
	}
}

// New returns an Observer. With no options it logs nothing and uses the
// global OpenTelemetry providers, which are no-ops unless the program
// installed some; see the export subpackage for providers configured from
// OTEL_* variables.
func New(opts ...Option) *Observer {
	c := Config{maxArgBytes: DefaultMaxArgumentBytes}
	c.apply(opts)
	if c.use != nil {
		return c.use
	}
	o := &Observer{cfg: c, logger: c.logger, red: redact.NewRedactor(c.secretNames...), prop: cmp.Or(c.propagator, defaultPropagator),
		calls: new(pendingCalls), attrSets: new(sync.Map), attrCount: new(atomic.Int32),
		linePC: new(atomic.Uintptr), keyOrders: new(keyOrders)}
	o.tp = cmp.Or(c.tp, otel.GetTracerProvider())
	if _, noop := o.tp.(tracenoop.TracerProvider); !noop && !c.noTracing {
		o.tracer = o.tp.Tracer(semconv.ScopeName, trace.WithInstrumentationVersion(semconv.ScopeVersion))
	}
	o.mp = cmp.Or(c.mp, otel.GetMeterProvider())
	if _, noop := o.mp.(metricnoop.MeterProvider); !noop && !c.noMetrics {
		o.initMetrics()
	}
	return o
}

// WithArguments returns an Observer that logs arguments as the given
// options say (WithArgumentValues, WithArgumentNamesOnly, WithoutArguments,
// applied on top of o's) and shares everything else with o. Other options are ignored. It is
// called at construction, not per call.
func (o *Observer) WithArguments(opts ...Option) *Observer {
	if len(opts) == 0 {
		return o
	}
	d := *o
	c := d.cfg
	var probe Config
	probe.apply(opts)
	c.valuesAll = c.valuesAll || probe.valuesAll
	c.namesAll = c.namesAll || probe.namesAll
	c.noneAll = c.noneAll || probe.noneAll
	c.valuesTools = mergeTools(c.valuesTools, probe.valuesTools)
	c.namesTools = mergeTools(c.namesTools, probe.namesTools)
	c.noneTools = mergeTools(c.noneTools, probe.noneTools)
	d.cfg = c
	return &d
}

func mergeTools(a, b map[string]bool) map[string]bool {
	if len(b) == 0 {
		return a
	}
	m := make(map[string]bool, len(a)+len(b))
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

// WithSecrets returns an Observer that also redacts the named parameters and
// shares everything else with o: providers, instruments and the request ids
// recorded by o's hooks. The adapters' typed helpers use it with the names of the fields
// tagged mcpwrap:"secret". It is called at construction, not per call.
func (o *Observer) WithSecrets(names ...string) *Observer {
	if len(names) == 0 {
		return o
	}
	d := *o
	d.cfg.secretNames = append(slices.Clip(o.cfg.secretNames), names...)
	d.red = redact.NewRedactor(d.cfg.secretNames...)
	d.keyOrders = new(keyOrders) // which keys are secret changed
	return &d
}

// Redactor returns the Redactor the Observer applies (the default secret
// names, WithSecretNames and WithSecrets), so that a result can be scrubbed
// the same way as the log line (Redactor.Secrets, Scrub). A nil Observer gives
// a nil Redactor, which redacts the default names.
func (o *Observer) Redactor() *redact.Redactor {
	if o == nil {
		return nil
	}
	return o.red
}

func (o *Observer) initMetrics() {
	m := o.mp.Meter(semconv.ScopeName, metric.WithInstrumentationVersion(semconv.ScopeVersion))
	var err error
	o.duration, err = m.Float64Histogram(semconv.MetricOperationDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of MCP requests handled by the server."),
		metric.WithExplicitBucketBoundaries(semconv.DurationBuckets()...))
	err = errors.Join(err, func() (e error) {
		o.retries, e = m.Int64Counter(semconv.MetricRetries, metric.WithUnit("{retry}"),
			metric.WithDescription("Tool handler attempts repeated after a retryable failure."))
		return e
	}(), func() (e error) {
		o.reconnects, e = m.Int64Counter(semconv.MetricReconnects, metric.WithUnit("{reconnect}"),
			metric.WithDescription("Upstream clients reconnected during tool calls."))
		return e
	}(), func() (e error) {
		o.repeated, e = m.Int64Counter(semconv.MetricRepeated, metric.WithUnit("{call}"),
			metric.WithDescription("Tool calls refused without running because the same call kept failing."))
		return e
	}(), func() (e error) {
		o.denials, e = m.Int64Counter(semconv.MetricDenials, metric.WithUnit("{request}"),
			metric.WithDescription("Requests an authorization policy did not allow, by tool and reason."))
		return e
	}(), func() (e error) {
		o.panics, e = m.Int64Counter(semconv.MetricPanics, metric.WithUnit("{panic}"),
			metric.WithDescription("Tool handler panics recovered."))
		return e
	}())
	if err != nil {
		otel.Handle(err)
	}
	o.metrics = o.duration != nil && o.retries != nil && o.reconnects != nil && o.panics != nil && o.repeated != nil && o.denials != nil
}

// Logger returns the logger of the per-call lines (nil without one).
func (o *Observer) Logger() *slog.Logger {
	if o == nil {
		return nil
	}
	return o.logger
}

// Flush writes out what is buffered: log lines held by a NewLogger built
// WithLogBuffer, and what the tracer and meter providers hold, for
// providers that can (the SDK's can). It has the shape of a shutdown
// function: the fatal path calls it before the process exits.
func (o *Observer) Flush(ctx context.Context) error {
	if o == nil {
		return nil
	}
	type flusher interface{ ForceFlush(context.Context) error }
	err := FlushLogger(o.logger)
	if f, ok := o.tp.(flusher); ok {
		err = errors.Join(err, f.ForceFlush(ctx))
	}
	if f, ok := o.mp.(flusher); ok {
		err = errors.Join(err, f.ForceFlush(ctx))
	}
	return err
}

// Log writes one operator line (a fatal error, the process exiting)
// through the Observer's logger, with the redaction of the per-call lines:
// attributes with secret names become Redacted, strings and errors are
// capped, scrubbed of secret-shaped values and made safe to print. It does
// nothing without a logger; a nil Observer does nothing.
func (o *Observer) Log(ctx context.Context, level slog.Level, msg string, attrs ...slog.Attr) {
	if o == nil || o.logger == nil || !o.logger.Enabled(ctx, level) {
		return
	}
	safe := make([]slog.Attr, 0, len(attrs))
	for _, a := range attrs {
		safe = append(safe, o.logAttr(a, nil))
	}
	o.logger.LogAttrs(ctx, level, redact.SafeText(o.red.CapScrub(msg, redact.MaxTextBytes, nil)), safe...)
}

type durationKey struct{ tool, errType string }

// durationAttrs returns the metric attributes of a tool and error type,
// built once per pair; past maxAttrSets pairs they are built per call
// instead of remembered.
func (o *Observer) durationAttrs(tool, errType string) metric.RecordOption {
	k := durationKey{tool, errType}
	if v, ok := o.attrSets.Load(k); ok {
		return v.(metric.RecordOption)
	}
	kv := []attribute.KeyValue{attribute.String(semconv.AttrMethodName, semconv.MethodToolsCall),
		attribute.String(semconv.AttrToolName, tool)}
	if errType != "" {
		kv = append(kv, attribute.String(semconv.AttrErrorType, errType))
	}
	opt := metric.WithAttributeSet(attribute.NewSet(kv...))
	if o.attrCount.Add(1) <= maxAttrSets {
		o.attrSets.Store(k, opt)
	}
	return opt
}
