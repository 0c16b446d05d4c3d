package wrap

import (
	"context"
	"encoding/hex"
	"log/slog"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
)

// Outcomes that are not error codes. Error outcomes use errs.Code.String().
const (
	outcomeSuccess       = "success"
	outcomeToolError     = "tool_error"
	outcomeInputRequired = "input_required"
	outcomePanic         = "panic"
	outcomeProtocolError = "protocol_error"
)

// record collects what the operator's log line says about one call. It lives
// on the caller's stack; nothing is allocated unless something is logged or
// an error result is built.
type record struct {
	tool      string
	callID    string
	begin     time.Time
	outcome   string
	err       error
	discarded bool
	// attempts is how many times the handler ran; retries raise it. It is
	// atomic because with a timeout the handler runs in its own goroutine,
	// which may outlive the answer.
	attempts atomic.Int32
}

func (r *record) start(cfg *config, req mcp.CallToolRequest) {
	r.tool = req.Params.Name
	if cfg.logger != nil {
		r.begin = time.Now()
	}
}

// id returns the call id, making one the first time it is needed. Code that
// hands the record to another goroutine calls id first, so that the lazy
// write happens before the goroutine starts.
func (r *record) id() string {
	if r.callID == "" {
		var b [8]byte
		u := rand.Uint64()
		for i := range b {
			b[i] = byte(u >> (8 * i))
		}
		r.callID = hex.EncodeToString(b[:])
	}
	return r.callID
}

// event records something that happened during the call (a retry, a
// reconnect, a breaker change) as its own log line tied to the call id.
func (r *record) event(ctx context.Context, cfg *config, level slog.Level, name string, attrs ...slog.Attr) {
	l := cfg.logger
	if l == nil || !l.Enabled(ctx, level) {
		return
	}
	all := make([]slog.Attr, 0, len(attrs)+3)
	all = append(all, slog.String("tool", r.tool), slog.String("call_id", r.id()), slog.String("event", name))
	all = append(all, attrs...)
	l.LogAttrs(ctx, level, "tool call event", all...)
}

func (r *record) fail(outcome string, err error) {
	r.outcome = outcome
	r.err = err
}

func (r *record) passthrough(err error) {
	r.outcome = outcomeProtocolError
	r.err = err
}

// log writes the call's one line, if a logger is set and enabled.
func (r *record) log(ctx context.Context, cfg *config) {
	l := cfg.logger
	if l == nil {
		return
	}
	level := r.level()
	if !l.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, 0, 8)
	attrs = append(attrs,
		slog.String("tool", r.tool),
		slog.String("call_id", r.id()),
		slog.String("outcome", r.outcome),
		slog.Float64("duration_ms", float64(time.Since(r.begin).Microseconds())/1000),
	)
	if r.err != nil {
		attrs = append(attrs,
			slog.String("code", errs.CodeOf(r.err).String()),
			slog.String("cause", r.err.Error()))
		if p := panicOf(r.err); p != nil {
			attrs = append(attrs, slog.String("stack", string(p.Stack)))
		}
	}
	if n := r.attempts.Load(); n > 1 {
		attrs = append(attrs, slog.Int("attempts", int(n)))
	}
	if r.discarded {
		attrs = append(attrs, slog.Bool("result_discarded", true))
	}
	l.LogAttrs(ctx, level, "tool call", attrs...)
}

// level is Info for calls that worked as designed, Warn for failures the
// model can act on, Error for what the operator must look at.
func (r *record) level() slog.Level {
	if r.err == nil {
		return slog.LevelInfo
	}
	switch errs.CodeOf(r.err) {
	case errs.Internal, errs.Fatal:
		return slog.LevelError
	}
	return slog.LevelWarn
}
