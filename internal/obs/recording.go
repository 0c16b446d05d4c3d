package obs

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/redact"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
)

// Caps of the operator-facing text of one call. Text is cut to these
// before it is scrubbed, so a multi-megabyte cause costs what a short one
// does.
const (
	maxCauseBytes = 8 << 10
	maxStackBytes = redact.MaxTextBytes
)

type serverSpanKey struct{}

// Recording is one tool call being observed. Its methods are safe for
// concurrent use; a nil *Recording does nothing, which is how the
// no-telemetry path stays free.
type Recording struct {
	o       *Observer
	span    trace.Span  // nil without tracing
	owned   bool        // we started the span, so we end it
	anyTool bool        // the tool is whatever the client named (unknown): not a metric attribute
	early   bool        // begin is before the span starts: mcp-go's hook saw the call first
	kind    requestKind // tools/call (the zero value), resources/read or prompts/get
	// The arguments are rendered once, by the goroutine that starts and
	// ends the call (startSpan, log), so no lock is needed.
	argState  argState
	begin     time.Time
	tool      string
	callID    string
	requestID string
	sessionID string
	protocol  string
	args      any
	rawArgs   []byte // the arguments as the client sent them, when known; then as logged (argsRaw)
	header    http.Header

	secOnce sync.Once
	secrets []string // secret values in the arguments and headers

	argText string    // the rendered arguments, unless they are rawArgs
	named   *keyOrder // the key order of the arguments by name for the line (namedArgs), set by namedArguments

	// traceIDs is the span's trace and span id in hex for the log lines,
	// set by openSpan when there is a logger.
	traceIDs string
}

// CallID returns the call's id: Start's callID, or the one it chose.
func (c *Recording) CallID() string {
	if c == nil {
		return ""
	}
	return c.callID
}

// Start begins observing a request: it reads the parent trace context (the
// context's span, else params._meta, else HTTP headers), starts the SERVER
// span ("tools/call {tool}", "resources/read", "prompts/get {prompt}") and
// returns a context carrying it, so the handler's own spans become its
// children. When an SDK adapter put its own server span for the request
// into the context (ContextWithServerSpan), that span is completed instead
// of starting a second one.
//
// An empty callID makes Start choose one (CallID returns it).
func (o *Observer) Start(ctx context.Context, req *call.Request, callID string) (context.Context, *Recording) {
	begin := time.Now()
	if at, ok := call.Received(ctx); ok {
		begin = at // the call waited for a worker of the transport
	}
	if callID == "" {
		callID = newCallID()
	}
	c := o.newRecording(ctx, req, callID, begin)
	if id, ok := o.claim(ctx); ok && c.requestID == "" {
		c.requestID = id
	}
	return c.startSpan(ctx, req)
}

func (o *Observer) newRecording(_ context.Context, req *call.Request, callID string, begin time.Time) *Recording {
	c := &Recording{o: o, begin: begin, callID: callID, header: req.Header, args: req.Args, rawArgs: req.Raw,
		kind: requestKind(req.Kind), sessionID: req.Session, requestID: redact.Name(req.RequestID), protocol: protocolOf(req)}
	if req.Kind == call.Resource {
		c.tool = o.red.URI(req.Name)
	} else {
		c.tool = redact.Name(req.Name)
	}
	if c.args == nil && len(req.Raw) > 0 {
		c.args = req.Raw
	}
	if req.Kind != call.Tool && isEmptyArgs(c.args) {
		c.args = nil
	}
	return c
}

// protocolOf is the protocol version of the request, or else of its
// header.
func protocolOf(req *call.Request) string {
	if p := redact.Name(req.Protocol); p != "" {
		return p
	}
	// The key is canonical: indexed without Get's canonicalising.
	if v := req.Header[headerProtocolVersion]; len(v) > 0 {
		return redact.Name(v[0])
	}
	return ""
}

// headerProtocolVersion is the HTTP header carrying the protocol version,
// in its canonical form.
const headerProtocolVersion = "Mcp-Protocol-Version"

// isEmptyArgs reports whether a resource's or prompt's arguments hold
// nothing to log.
func isEmptyArgs(a any) bool {
	switch v := a.(type) {
	case nil:
		return true
	case map[string]any:
		return len(v) == 0
	case map[string]string:
		return len(v) == 0
	}
	return false
}

// startSpan starts the request's span, or adopts the SDK's server span for
// it. Only the attributes a sampler may read are given at the start
// (startAttrs); the rest, and those that cost work (the arguments), are
// added at the end for a span that records (lateAttrs), so a span nobody
// records costs no rendering and no copy of them.
func (c *Recording) startSpan(ctx context.Context, req *call.Request) (context.Context, *Recording) {
	o := c.o
	if o.tracer == nil {
		return ctx, c
	}
	if c.kind != kindTool {
		return c.startRequestSpan(ctx, req), c
	}
	name := semconv.MethodToolsCall
	if c.tool != "" {
		name += " " + c.tool
	}
	ctx = c.openSpan(ctx, name, req.Meta, req.Header, c.startAttrs(semconv.MethodToolsCall, semconv.AttrToolName))
	return ctx, c
}

// startAttrs are the span's attributes a sampler may read, given at its
// start: what names the request (the method, the tool, prompt or
// resource, the JSON-RPC request id and the session). The MCP semantic
// conventions mark none sampling-relevant (model/mcp/spans.yaml); these
// are the ones a sampler can tell calls apart by, and cost no rendering.
func (c *Recording) startAttrs(method, target string) []attribute.KeyValue {
	n := 2
	for _, v := range [...]string{c.requestID, c.sessionID} {
		if v != "" {
			n++
		}
	}
	attrs := make([]attribute.KeyValue, 0, n) // exact: every slot is 64 bytes
	attrs = append(attrs, attribute.String(semconv.AttrMethodName, method), attribute.String(target, c.tool))
	if c.requestID != "" {
		attrs = append(attrs, attribute.String(semconv.AttrRequestID, c.requestID))
	}
	if c.sessionID != "" {
		attrs = append(attrs, attribute.String(semconv.AttrSessionID, c.sessionID))
	}
	return attrs
}

// lateAttrs appends the span's other request attributes, for a span that
// records: the operation, the transport, the call id, the protocol
// version and, when on, the arguments.
func (c *Recording) lateAttrs(attrs []attribute.KeyValue) []attribute.KeyValue {
	if c.kind == kindTool {
		attrs = append(attrs, attribute.String(semconv.AttrOperationName, semconv.OperationExecuteTool))
	}
	attrs = append(attrs, attribute.String(semconv.AttrNetworkTransport, c.transport(c.header)))
	if c.callID != "" {
		attrs = append(attrs, attribute.String(semconv.AttrCallID, c.callID))
	}
	if c.protocol != "" {
		attrs = append(attrs, attribute.String(semconv.AttrProtocolVersion, c.protocol))
	}
	if c.kind == kindTool && c.o.cfg.recordArgs {
		if a := c.argumentsText(); a != "" {
			attrs = append(attrs, attribute.String(semconv.AttrToolArguments, a))
		}
	}
	return attrs
}

// lateCount is how many attributes lateAttrs appends, at most (the
// arguments may render to nothing).
func (c *Recording) lateCount() int {
	n := 1 // the transport
	if c.kind == kindTool {
		n++
		if c.o.cfg.recordArgs {
			n++
		}
	}
	for _, v := range [...]string{c.callID, c.protocol} {
		if v != "" {
			n++
		}
	}
	return n
}

// transport is network.transport: "tcp" when the request carries HTTP
// headers, "pipe" (stdio) otherwise.
func (c *Recording) transport(header http.Header) string {
	if len(header) > 0 {
		return semconv.TransportTCP
	}
	return semconv.TransportPipe
}

// knownSecrets returns, once per call, the secret values the arguments
// and headers hold, so that free text repeating them can be scrubbed.
func (c *Recording) knownSecrets() []string {
	c.secOnce.Do(func() {
		var found []string
		if len(c.header) > 0 {
			c.o.red.SecretHeaders(c.header, &found)
		}
		if c.args != nil {
			c.o.red.SecretsIn(c.args, &found)
		}
		c.secrets = found
	})
	return c.secrets
}

// text caps, scrubs and sanitises operator text of this call.
func (c *Recording) text(s string, n int) string {
	return c.o.red.CapScrub(s, n, c.knownSecrets())
}

// End finishes the call: the span's status, attributes and end, the
// duration metric, and the log line.
func (c *Recording) End(ctx context.Context, out Report) {
	if c == nil {
		return
	}
	now := time.Now()
	d := now.Sub(c.begin)
	errType := out.ErrorType()
	var code string
	if out.Err != nil {
		code = out.Err.Code().String()
	}
	panicked := out.Stack != nil
	var cause lazyCause
	if c.span != nil {
		c.finishSpan(&out, errType, code, panicked, &cause)
	}
	if c.o.metrics {
		c.endMetrics(ctx, &out, d, errType, panicked)
	}
	c.log(ctx, &out, now, d, errType, code, &cause)
}

// finishSpan sets the span's end state, marks a repeated failure, and ends
// the span if this call started it.
func (c *Recording) finishSpan(out *Report, errType, code string, panicked bool, cause *lazyCause) {
	if c.span.IsRecording() {
		c.endSpan(out, errType, code, panicked, cause)
		if out.Outcome == OutcomeRepeatedFailure {
			c.span.AddEvent(semconv.EventRepeated)
		}
	}
	if c.owned {
		c.span.End()
	}
}

// endMetrics records the call's metrics: repeated failures, denials, the
// duration, panics.
func (c *Recording) endMetrics(ctx context.Context, out *Report, d time.Duration, errType string, panicked bool) {
	if out.Outcome == OutcomeRepeatedFailure {
		c.o.repeated.Add(ctx, 1, metric.WithAttributes(attribute.String(semconv.AttrToolName, c.metricToolName())))
	}
	if out.Authz != nil && out.Authz.Denied() {
		c.o.denials.Add(ctx, 1, metric.WithAttributes(attribute.String(semconv.AttrToolName, c.metricToolName()),
			attribute.String(semconv.AttrAuthzReason, out.Authz.Reason)))
	}
	c.o.duration.Record(ctx, d.Seconds(), c.durationOption(errType))
	if panicked {
		c.o.panics.Add(ctx, 1, c.panicOption())
	}
}

func (c *Recording) endSpan(out *Report, errType, code string, panicked bool, lc *lazyCause) {
	s := c.span
	s.SetAttributes(c.endAttrs(out, errType, code)...)
	if out.Authz != nil {
		s.SetAttributes(out.Authz.spanAttrs()...)
	}
	if out.Err != nil {
		c.addException(out, code, panicked, lc.get(c, out.Err))
	}
	if errType != "" {
		s.SetStatus(codes.Error, c.statusDescription(out, code))
	}
}

// endAttrs are the span's attributes set at its end: lateAttrs, then the
// outcome and what failed.
func (c *Recording) endAttrs(out *Report, errType, code string) []attribute.KeyValue {
	n := 2 + c.lateCount()
	for _, on := range [...]bool{errType != "", out.JSONRPCCode != 0, code != "", out.Masked, out.CutFrom > 0,
		c.o.cfg.recordResult && out.Result != nil, out.TaskID != "", out.Cache != ""} {
		if on {
			n++
		}
	}
	attrs := make([]attribute.KeyValue, 0, n) // exact but for empty arguments: every slot is 64 bytes
	attrs = c.lateAttrs(attrs)
	attrs = append(attrs,
		attribute.String(semconv.AttrOutcome, string(out.Outcome)),
		attribute.Int(semconv.AttrAttempts, out.Attempts))
	if errType != "" {
		attrs = append(attrs, attribute.String(semconv.AttrErrorType, errType))
	}
	if out.JSONRPCCode != 0 {
		attrs = append(attrs, attribute.Int(semconv.AttrRPCStatusCode, out.JSONRPCCode))
	}
	if code != "" {
		attrs = append(attrs, attribute.String(semconv.AttrErrorCode, code))
	}
	if out.Masked {
		attrs = append(attrs, attribute.Bool(semconv.AttrMasked, true))
	}
	if out.CutFrom > 0 {
		attrs = append(attrs, attribute.Int(semconv.AttrCutFrom, out.CutFrom))
	}
	if out.TaskID != "" {
		attrs = append(attrs, attribute.String(semconv.AttrTaskID, c.text(out.TaskID, redact.MaxNameBytes)))
	}
	if out.Cache != "" {
		attrs = append(attrs, attribute.String(semconv.AttrCache, out.Cache))
	}
	if c.o.cfg.recordResult && out.Result != nil {
		attrs = append(attrs, attribute.String(semconv.AttrToolResult, c.resultText(out.Result)))
	}
	return attrs
}

// addException adds the span's event of a failed call: a panic with its
// stack, or an exception named by the error's code.
func (c *Recording) addException(out *Report, code string, panicked bool, cause string) {
	if panicked {
		c.span.AddEvent(semconv.EventPanic, trace.WithAttributes(
			attribute.String(semconv.AttrExceptionType, "panic"),
			attribute.String(semconv.AttrExceptionMessage, cause),
			attribute.String(semconv.AttrExceptionStacktrace, c.text(string(out.Stack), maxStackBytes))))
		return
	}
	c.span.AddEvent(semconv.EventException, trace.WithAttributes(
		attribute.String(semconv.AttrExceptionType, code),
		attribute.String(semconv.AttrExceptionMessage, cause)))
}

// resultText is the result for gen_ai.tool.call.result: its text,
// capped, then scrubbed of the call's secrets.
func (c *Recording) resultText(res call.Result) string {
	return c.text(res.Text(), c.o.cfg.maxArgBytes)
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
	if e.Code().Public() && e.Message() != "" && !out.Masked {
		return c.text(e.Message(), maxCauseBytes)
	}
	return code
}

// lazyCause is a failed call's cause as the operator sees it, built once
// for the span and the log line, and only if one of them wants it.
type lazyCause struct {
	text string
	done bool
}

func (l *lazyCause) get(c *Recording, e *errs.Error) string {
	if !l.done {
		l.text, l.done = c.text(causeText(e, maxCauseBytes), maxCauseBytes), true
	}
	return l.text
}

// metricToolName is the tool as a metric attribute: a client may name any
// tool, so an unknown one is left out to keep metric series bounded.
func (c *Recording) metricToolName() string {
	if c.anyTool {
		return ""
	}
	return c.tool
}

// argState says what Recording.argText holds.
type argState uint8

const (
	argsPending argState = iota // not rendered yet
	argsEmpty                   // nothing to log
	argsRaw                     // rawArgs holds the client's JSON, to log as it is
	argsOwn                     // rawArgs holds JSON rendered here (redacted, or names): valid and compact
	argsText                    // argText is text (JSON cut by a cap)
)
