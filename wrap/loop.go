package wrap

import (
	"context"
	"net/http"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/loopguard"
)

// LoopGuard stops a model's loop of the same failing call: once a caller
// has called a tool with the same arguments (compared as JSON, whatever
// their key order or white space) and had it fail with the same code
// Failures times within Window, the next identical call is answered at
// once, without running the handler, with an error result that says what
// failed, how often, the last message and what to do instead. A success,
// other arguments or the window passing start the count again; a failure
// that said when to retry (a rate limit) refuses repeats only until then.
// The zero value gives the defaults.
//
// A caller is who the history belongs to (see Caller): by default the MCP
// session together with the credential, so that stateless HTTP, which has
// no session, keys on the credential. A call with neither is not guarded,
// and the first such call says so in one log line: one caller's failures
// never refuse another caller's call.
type LoopGuard struct {
	// Failures is how many identical failures refuse the next identical
	// call; default 3.
	Failures int
	// Window is how recent those failures must be; default 2 minutes.
	Window time.Duration
	// Transient counts Timeout and Unavailable failures too. They describe
	// the upstream's state, not the call, so by default they do not count.
	Transient bool
	// MaxCalls bounds the calls tracked across all callers (the least
	// recently failed are forgotten first); default 10 000. PerSession
	// bounds one caller's share; default 64.
	MaxCalls, PerSession int
	// Except names tools the guard leaves alone.
	Except []string
	// Store shares the guard's memory between replicas (the redislimit
	// package has one in Redis), so that a model retrying through a load
	// balancer meets the same guard. Nil keeps it in the process. While
	// the store fails, the guard uses the process's memory (it records
	// every failure there too), logged once.
	Store LoopStore
	// Caller names whose history a call belongs to, from the call's MCP
	// session id ("" when it has none) and HTTP headers (nil when it did
	// not come over HTTP); "" leaves the call unguarded. Nil means the
	// session id and a SHA-256 hash of the Authorization header, whichever
	// the call carries (both when it carries both, so that a session id
	// presented with another credential is another caller). The hash is
	// wrap/limit's credential key, so the guard and the rate limits agree
	// on who a caller is. A call that did not come over HTTP and has no
	// session id (go-sdk's stdio) is "connection": stdio serves one
	// client. An HTTP call with neither gets "": stateless HTTP, and
	// mcp-go's HTTP at protocol versions without sessions, cannot tell
	// its callers apart, so the guard leaves the call alone. Caller must
	// be safe for concurrent use and cheap, and must not return a secret
	// as is: the name is kept in memory and, with Store, sent to the store.
	Caller func(ctx context.Context, session string, header http.Header) string
}

// LoopStore keeps the loop guard's records where replicas share them.
// Keys are fixed-length hashes of the caller, tool and arguments; a record
// holds a code, a count, when to allow a retry and the last message the
// model was shown. Its methods must be safe for concurrent use and return
// within a bounded time (the guard gives each call 500ms, and after a failure asks the store
// again only a second later).
type LoopStore interface {
	// Load returns key's record; the zero record when there is none.
	Load(ctx context.Context, key string) (LoopRecord, error)
	// Fail adds one failure to key's record: Count+1 when r.Code is the
	// record's code, else a new record of count 1 that expires window
	// after this first failure. RetryAt and Message replace the record's.
	Fail(ctx context.Context, key string, r LoopRecord, window time.Duration) error
	// Forget deletes key's record.
	Forget(ctx context.Context, key string) error
}

// LoopRecord is one call's failures as a LoopStore keeps them.
type LoopRecord struct {
	Code    errs.Code
	Count   int
	RetryAt time.Time // zero: the failure did not say when to retry
	Message string
}

// WithLoopGuard turns on the repeated-failure guard. It is off by default:
// a call can fail three times and then succeed when something outside it
// changed (a file another tool creates), which a guard would have refused.
// Its memory is bounded (MaxCalls entries of about 200 bytes) and it starts
// no goroutine.
func WithLoopGuard(g LoopGuard) Option {
	return func(c *config) {
		lc := loopguard.Config{Failures: g.Failures, Window: g.Window, Transient: g.Transient,
			MaxCalls: g.MaxCalls, PerSession: g.PerSession, Except: g.Except, Caller: g.Caller}
		if lc.Caller == nil {
			lc.Caller = call.SessionCaller
		}
		if st := g.Store; st != nil {
			lc.Store = loopguard.Store{
				Load: func(ctx context.Context, key string) (loopguard.Record, error) {
					r, err := st.Load(ctx, key)
					return loopguard.Record(r), err
				},
				Fail: func(ctx context.Context, key string, r loopguard.Record, window time.Duration) error {
					return st.Fail(ctx, key, LoopRecord(r), window)
				},
				Forget: st.Forget,
			}
		}
		c.loops = loopguard.New(lc)
	}
}
