package wrap

import (
	"context"
	"encoding/hex"
	"log/slog"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/roundstate"
)

// record collects what the chain learns about one call and hands it to the
// observer (internal/obs does the logging, spans and metrics). It lives
// on the caller's stack; with no observer nothing is allocated unless an
// error result is built.
type record struct {
	tool    string
	callID  string
	outcome obs.Outcome
	// err is the failure, classified once (errs.From) where it is known.
	err       *errs.Error
	discarded bool
	// public is set when the model read err's own text (see classify).
	public bool
	result call.Result
	// cutFrom is the size of a result the cap cut, 0 when none was.
	cutFrom int
	begin   time.Time
	obs     *obs.Recording // nil without an observer
	// rpcCode is the JSON-RPC code a resources/read or prompts/get was
	// answered with (tools answer failures with results).
	rpcCode int
	// attempts is how many times the handler ran; retries raise it.
	attempts int32
	// shared counts attempts instead when the handler runs in its own
	// goroutine (with a timeout), which may outlive the answer. An atomic
	// on every call would cost ~10 ns; this way only that path pays.
	shared *atomic.Int32
	// authz is the policy's decision (WithAuthorization), nil without one.
	authz *obs.Authz
	// round is the multi round-trip state of the call (mrtr.go), nil on a
	// call that carries none and was not asked to confirm.
	round *roundstate.Round
	// taskID is the task the call created or whose work this is (task.go).
	taskID string
	// cache is how the call cache served the call (cache.go); ended, when
	// set, is told the handler's outcome (a flight's leader).
	cache string
	ended func(*outcome)
}

// start begins observing the call; the returned context carries its span.
// chain is the call id of the call's earlier rounds, "" for a new call.
func (r *record) start(ctx context.Context, cfg *config, req *call.Request, chain string) context.Context {
	r.tool = layerName(req)
	if req.Kind != call.Tool {
		r.begin = time.Now()
	}
	if cfg.observer != nil {
		// The observer makes the call id, where it costs no allocation.
		ctx, r.obs = cfg.observer.Start(ctx, req, chain)
		r.callID = r.obs.CallID()
	} else {
		r.callID = chain
	}
	return ctx
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
// reconnect, a breaker change, named by the obs.Event* constants): a
// span event, a metric for retries and reconnects, and a log line tied to
// the call id.
func (r *record) event(ctx context.Context, level slog.Level, name string, attrs ...slog.Attr) {
	r.obs.Event(ctx, level, name, attrs...)
}

// attempted counts one run of the handler.
func (r *record) attempted() {
	if r.shared != nil {
		r.shared.Add(1)
		return
	}
	r.attempts++
}

func (r *record) fail(outcome obs.Outcome, err *errs.Error) {
	r.outcome = outcome
	r.err = err
}

// failed records o's error, as a panic when the handler panicked.
func (r *record) failed(o *outcome) {
	r.fail(obs.CodeOutcome(o.err.Code()), o.err)
	if o.panic != nil {
		r.outcome = obs.OutcomePanic
	}
}

// passthrough records a protocol error sent with the JSON-RPC code code,
// classified as errmap.ProtocolClass says (a client's mistake is not a server
// fault).
func (r *record) passthrough(err error, code int, c errs.Code) {
	r.outcome = obs.OutcomeProtocolError
	r.err = errmap.ProtocolClass(err, code, c)
	r.rpcCode = code
}

// log ends the observation: log line, span and metrics.
func (r *record) log(ctx context.Context) {
	if r.obs == nil {
		return
	}
	out := obs.Report{
		Outcome:     r.outcome,
		Err:         r.err,
		Attempts:    int(r.attempts),
		Discarded:   r.discarded,
		Result:      r.result,
		JSONRPCCode: r.rpcCode,
		CutFrom:     r.cutFrom,
		Authz:       r.authz,
		TaskID:      r.taskID,
		Cache:       r.cache,
		Masked:      r.masked(),
	}
	if r.err == nil { // a nil *errs.Error must not become a non-nil error
		r.obs.End(ctx, out)
		return
	}
	if p := panicOf(r.err); p != nil {
		out.Stack = p.Stack
	}
	if r.outcome == obs.OutcomeProtocolError {
		out.JSONRPCCode = r.rpcCode
	}
	r.obs.End(ctx, out)
}

// masked reports whether the model read a generic sentence instead of the
// call's error.
func (r *record) masked() bool {
	return r.err != nil && !r.err.Code().Public() && r.outcome != obs.OutcomeProtocolError && !r.public
}
