package obs

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/internal/logline"
	"github.com/mcpwrap/mcpwrap/internal/redact"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
)

// log writes the call's one line, at now. The record is built here and
// handed to the logger's handler, which is what Logger.LogAttrs does less a
// second Enabled check, a second clock read and a heap slice of the
// attributes.
func (c *Recording) log(ctx context.Context, out *Report, now time.Time, d time.Duration, errType, code string, cause *lazyCause) {
	l := c.o.logger
	if l == nil {
		return
	}
	level := out.level()
	if !l.Enabled(ctx, level) {
		return
	}
	if ctx == nil { // as Logger.LogAttrs does, for the handler
		ctx = context.Background()
	}
	var buf [19]slog.Attr // as many as a line can carry: on the stack
	attrs := append(buf[:0],
		c.nameAttr(),
		slog.String(semconv.KeyCallID, c.callID),
		slog.String(semconv.KeyOutcome, string(out.Outcome)),
		slog.Float64(semconv.KeyDurationMS, float64(d.Microseconds())/1000),
		slog.Int(semconv.KeyAttempts, out.Attempts),
	)
	if c.requestID != "" {
		attrs = append(attrs, slog.String(semconv.KeyRequestID, c.requestID))
	}
	if c.sessionID != "" {
		attrs = append(attrs, slog.String(semconv.KeySessionID, c.sessionID))
	}
	if c.protocol != "" {
		attrs = append(attrs, slog.String(semconv.KeyProtocolVersion, c.protocol))
	}
	attrs = c.appendArguments(attrs, l.Handler())
	if out.TaskID != "" {
		attrs = append(attrs, slog.String(semconv.KeyTaskID, c.text(out.TaskID, redact.MaxNameBytes)))
	}
	if out.Cache != "" {
		attrs = append(attrs, slog.String(semconv.KeyCache, out.Cache))
	}
	attrs = c.appendFailure(attrs, out, errType, code, cause)
	attrs = c.appendTraceIDs(attrs)
	h := l.Handler()
	if logline.HandleAttrs(h, now, level, c.message(), attrs) {
		return
	}
	r := slog.NewRecord(now, level, c.message(), c.o.logPC())
	r.AddAttrs(attrs...)
	_ = h.Handle(ctx, r)
}

// appendArguments appends the call's arguments in the form the handler h
// writes best, if there are any to show.
func (c *Recording) appendArguments(attrs []slog.Attr, h slog.Handler) []slog.Attr {
	if v, ok := c.lineArguments(h); ok {
		return append(attrs, slog.Attr{Key: semconv.KeyArguments, Value: v})
	}
	if b, text := c.arguments(); b != nil {
		return append(attrs, c.argumentsAttr(h, b))
	} else if text != "" {
		return append(attrs, slog.String(semconv.KeyArguments, text))
	}
	return attrs
}

// logPC is the program counter a handler built with AddSource reports for
// the call's line: this file's log, where Logger.LogAttrs would have found
// its caller. It is looked up once per Observer (a stack walk costs about
// as much as the rest of the record).
func (o *Observer) logPC() uintptr {
	if pc := o.linePC.Load(); pc != 0 {
		return pc
	}
	var pcs [1]uintptr
	runtime.Callers(2, pcs[:]) // skip runtime.Callers and logPC
	o.linePC.Store(pcs[0])
	return pcs[0]
}

func (c *Recording) appendFailure(attrs []slog.Attr, out *Report, errType, code string, cause *lazyCause) []slog.Attr {
	if errType != "" {
		attrs = append(attrs, slog.String(semconv.KeyErrorType, errType))
	}
	if out.JSONRPCCode != 0 {
		attrs = append(attrs, slog.Int(semconv.KeyJSONRPCCode, out.JSONRPCCode))
	}
	attrs = c.appendCause(attrs, out, code, cause)
	if out.Masked {
		attrs = append(attrs, slog.Bool(semconv.KeyMasked, true))
	}
	if out.Stack != nil {
		attrs = append(attrs, slog.String(semconv.KeyStack, c.text(string(out.Stack), maxStackBytes)))
	}
	if out.Discarded {
		attrs = append(attrs, slog.Bool(semconv.KeyDiscarded, true))
	}
	if out.CutFrom > 0 {
		attrs = append(attrs, slog.Int(semconv.KeyCutFrom, out.CutFrom))
	}
	if out.Authz != nil {
		attrs = append(attrs, out.Authz.logAttr())
	}
	return attrs
}

// appendCause appends what failed: the error's code and cause, or the text
// of an error result the handler built.
func (c *Recording) appendCause(attrs []slog.Attr, out *Report, code string, cause *lazyCause) []slog.Attr {
	switch {
	case out.Err != nil:
		return append(attrs, slog.String(semconv.KeyCode, code), slog.String(semconv.KeyCause, cause.get(c, out.Err)))
	case out.Outcome == OutcomeToolError && out.Result != nil:
		// An error result the handler built: its text is the operator's
		// only clue to what failed upstream.
		return append(attrs, slog.String(semconv.KeyCause, c.text(out.Result.Text(), maxCauseBytes)))
	}
	return attrs
}

// arguments renders the arguments for the log line and span once, as the
// tool's argument mode says: redacted JSON, or text when a cap cut it;
// only names and sizes; or nothing.
func (c *Recording) arguments() (asJSON []byte, text string) {
	if c.argState == argsPending {
		c.argState = argsEmpty
		if c.args != nil && c.o.cfg.maxArgBytes > 0 {
			switch c.o.cfg.argMode(c.tool) {
			case argsFull:
				c.argState, c.argText = c.fullArguments()
			case argsNames:
				c.argState, c.argText = c.capJSON(c.argumentNames())
			}
		}
	}
	switch c.argState {
	case argsRaw, argsOwn:
		return c.rawArgs, ""
	}
	return nil, c.argText
}

// argumentsText is arguments as one string, for the span attribute.
func (c *Recording) argumentsText() string {
	if b, text := c.arguments(); b != nil {
		return string(b)
	} else {
		return text
	}
}

func (c *Recording) fullArguments() (argState, string) {
	limit := c.o.cfg.maxArgBytes
	budget := 4 * limit
	if raw := c.rawArgs; len(raw) > 0 && len(raw) <= limit && c.o.red.Clean(c.args, 0, limit, &budget) && redact.SafeBytes(raw) {
		// Nothing to redact: the client's own bytes are the log's, without
		// building a redacted copy and encoding it again.
		return argsRaw, ""
	}
	return c.capJSON(json.Marshal(c.o.red.ValueWithin(c.args, limit, 4*limit)))
}

func (c *Recording) capJSON(b []byte, err error) (argState, string) {
	switch {
	case err != nil:
		return argsText, c.text(redact.ErrorText(err), c.o.cfg.maxArgBytes)
	case len(b) > c.o.cfg.maxArgBytes:
		return argsText, redact.CapBytes(b, c.o.cfg.maxArgBytes)
	case string(b) == "null":
		return argsEmpty, ""
	}
	// The rendered JSON takes the place of the client's bytes, which are
	// not needed any more: no copy into a string and back.
	c.rawArgs = b
	return argsOwn, ""
}

// argumentNames renders arguments by name, JSON type and size only:
// "<string, 4 bytes>", "<array, 3 items>", "<object, 2 keys>",
// "<number>"; a value under a secret name is Redacted, not even its size
// shown. An object of plain names is written straight into one buffer;
// anything else goes through argumentSizes and the encoder, which give
// the same bytes.
func argumentNames(r *redact.Redactor, args any) ([]byte, error) {
	if raw, ok := args.(json.RawMessage); ok {
		var decoded any
		if len(raw) > redact.MaxTextBytes*64 || json.Unmarshal(raw, &decoded) != nil {
			return marshalPlain(sizeOf(args))
		}
		args = decoded
	}
	if m, ok := args.(map[string]any); ok && len(m) <= 256 {
		if b, ok := appendArgumentSizes(r, m); ok {
			return b, nil
		}
	}
	return marshalPlain(argumentSizes(r, args))
}

// argumentNames is argumentNames(c.o.red, c.args) for a known tool
// through the tool's remembered key order: the keys are not sorted nor
// checked for secrets again on every call.
func (c *Recording) argumentNames() ([]byte, error) {
	if m, ok := c.args.(map[string]any); ok && !c.anyTool && c.o.keyOrders != nil {
		if b, ok := c.o.keyOrders.appendSizes(c.o.red, c.tool, m); ok {
			return b, nil
		}
	}
	return argumentNames(c.o.red, c.args)
}

// appendArgumentSizes writes what marshalPlain(argumentSizes(r, m)) would
// (keys sorted, values unescaped), when every key is printable ASCII that
// needs no escaping, capping or rewriting; ok is false otherwise.
func appendArgumentSizes(r *redact.Redactor, m map[string]any) (b []byte, ok bool) {
	type pair struct {
		k string
		v any
	}
	var arr [16]pair
	pairs := arr[:0]
	n := 2
	for k, v := range m {
		if !plainKey(k) {
			return nil, false
		}
		pairs = append(pairs, pair{k, v})
		n += len(k) + 32
	}
	slices.SortFunc(pairs, func(a, b pair) int { return strings.Compare(a.k, b.k) })
	b = make([]byte, 0, n)
	b = append(b, '{')
	for i, p := range pairs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, p.k...)
		b = append(b, `":"`...)
		if r.IsSecretName(p.k) {
			b = append(b, redact.Redacted...)
		} else {
			b = appendSizeOf(b, p.v)
		}
		b = append(b, '"')
	}
	return append(b, '}'), true
}

// plainKey reports whether k is written in JSON as it is and left alone
// by SafeText and CapString.
func plainKey(k string) bool {
	if len(k) > redact.MaxNameBytes {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// argumentSizes is argumentNames' value for the encoder, for arguments
// appendArgumentSizes does not write.
func argumentSizes(r *redact.Redactor, args any) any {
	m, ok := args.(map[string]any)
	if !ok || len(m) > 256 {
		return sizeOf(args)
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		k := redact.Name(k)
		if r.IsSecretName(k) {
			out[k] = redact.Redacted
			continue
		}
		out[k] = sizeOf(v)
	}
	return out
}

// marshalPlain is json.Marshal without HTML escaping, so that "<string, 4
// bytes>" reads as it is in the log line.
func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// appendSizeOf appends sizeOf(v).
func appendSizeOf(b []byte, v any) []byte {
	switch x := v.(type) {
	case string:
		b = append(b, "<string, "...)
		return append(strconv.AppendInt(b, int64(len(x)), 10), " bytes>"...)
	case []any:
		b = append(b, "<array, "...)
		return append(strconv.AppendInt(b, int64(len(x)), 10), " items>"...)
	case map[string]any:
		b = append(b, "<object, "...)
		return append(strconv.AppendInt(b, int64(len(x)), 10), " keys>"...)
	}
	return append(b, sizeOf(v)...)
}

func sizeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "<null>"
	case string:
		return "<string, " + strconv.Itoa(len(x)) + " bytes>"
	case bool:
		return "<bool>"
	case float64, json.Number, int, int64:
		return "<number>"
	case []any:
		return "<array, " + strconv.Itoa(len(x)) + " items>"
	case map[string]any:
		return "<object, " + strconv.Itoa(len(x)) + " keys>"
	case json.RawMessage:
		return "<json, " + strconv.Itoa(len(x)) + " bytes>"
	}
	return "<" + reflect.TypeOf(v).Kind().String() + ">"
}

func appendTraceIDs(attrs []slog.Attr, s trace.Span) []slog.Attr {
	if s == nil {
		return attrs
	}
	sc := s.SpanContext()
	if !sc.IsValid() {
		return attrs
	}
	ids := traceIDText(sc)
	return append(attrs, slog.String(semconv.KeyTraceID, ids[:2*len(sc.TraceID())]),
		slog.String(semconv.KeySpanID, ids[2*len(sc.TraceID()):]))
}

// Late logs a handler that finished after its call was answered (its
// timeout fired); err and stack are what it ended with.
func (c *Recording) Late(late time.Duration, err error, stack []byte) {
	if c == nil || c.o.logger == nil {
		return
	}
	attrs := []slog.Attr{
		c.nameAttr(),
		slog.String(semconv.KeyCallID, c.callID),
		slog.Float64(semconv.KeyLateMS, float64(late.Microseconds())/1000),
	}
	if err != nil {
		attrs = append(attrs, slog.String(semconv.KeyCause, c.text(redact.ErrorText(err), maxCauseBytes)))
	}
	if stack != nil {
		attrs = append(attrs, slog.String(semconv.KeyStack, c.text(string(stack), maxStackBytes)))
	}
	attrs = c.appendTraceIDs(attrs)
	c.o.logger.LogAttrs(context.Background(), slog.LevelWarn, semconv.MsgLate, attrs...)
}

// logAttr makes an attribute safe for a log line: secret names redacted,
// text capped, scrubbed of known and secret-shaped values and sanitised,
// errors turned into their (never panicking) text.
func (o *Observer) logAttr(a slog.Attr, known []string) slog.Attr {
	key := redact.Name(a.Key)
	if o.red.IsSecretName(a.Key) {
		return slog.String(key, redact.Redacted)
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(key, o.red.CapScrub(v.String(), maxCauseBytes, known))
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(key, o.red.CapScrub(redact.ErrorText(err), maxCauseBytes, known))
		}
		return slog.Any(key, o.red.ValueWithin(v.Any(), maxCauseBytes, redact.MaxTextBytes))
	case slog.KindGroup:
		return slog.Any(key, o.red.SlogValueWithin(v, maxCauseBytes, redact.MaxTextBytes))
	}
	return slog.Attr{Key: key, Value: v}
}

// otelAttr converts a slog attribute for a span with the redaction of
// logAttr.
func (o *Observer) otelAttr(a slog.Attr, known []string) attribute.KeyValue {
	key := redact.Name(a.Key)
	if o.red.IsSecretName(a.Key) {
		return attribute.String(key, redact.Redacted)
	}
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindBool:
		return attribute.Bool(key, v.Bool())
	case slog.KindInt64:
		return attribute.Int64(key, v.Int64())
	case slog.KindUint64:
		return attribute.Int64(key, int64(v.Uint64()))
	case slog.KindFloat64:
		return attribute.Float64(key, v.Float64())
	case slog.KindDuration:
		return attribute.Float64(key, v.Duration().Seconds())
	case slog.KindString:
		return attribute.String(key, o.red.CapScrub(v.String(), maxCauseBytes, known))
	}
	return attribute.String(key, o.red.CapScrub(o.compositeText(v), maxCauseBytes, known))
}

// compositeText is the text of a value that is not a scalar: an error's
// text, or the value's redacted JSON.
func (o *Observer) compositeText(v slog.Value) string {
	if err, ok := v.Any().(error); ok {
		return redact.ErrorText(err)
	}
	var b []byte
	if v.Kind() == slog.KindGroup {
		b, _ = json.Marshal(o.red.SlogValueWithin(v, maxCauseBytes, redact.MaxTextBytes))
	} else {
		b, _ = json.Marshal(o.red.ValueWithin(v.Any(), maxCauseBytes, redact.MaxTextBytes))
	}
	return string(b)
}
