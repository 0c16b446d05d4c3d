package wrap

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/fnv"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
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

// loopStoreWait bounds each call of the loop guard's store; after a
// failure the guard asks the store again only loopStoreRetry later.
const (
	loopStoreWait  = 500 * time.Millisecond
	loopStoreRetry = time.Second
)

// defaultCaller is the loop guard's default Caller (see LoopGuard.Caller).
func defaultCaller(_ context.Context, session string, header http.Header) string {
	auth := header.Get("Authorization")
	switch {
	case auth != "" && session != "":
		return "session:" + session + " credential:" + credentialHash(auth)
	case auth != "":
		return "credential:" + credentialHash(auth)
	case session != "":
		return "session:" + session
	case header == nil:
		return "connection"
	}
	return ""
}

// credentialHash is the first 16 bytes of the credential's SHA-256, in
// hex: wrap/limit's credential key.
func credentialHash(cred string) string {
	sum := sha256.Sum256([]byte(cred))
	return hex.EncodeToString(sum[:16])
}

// WithLoopGuard turns on the repeated-failure guard. It is off by default:
// a call can fail three times and then succeed when something outside it
// changed (a file another tool creates), which a guard would have refused.
// Its memory is bounded (MaxCalls entries of about 200 bytes) and it starts
// no goroutine.
func WithLoopGuard(g LoopGuard) Option {
	return func(c *config) { c.loops = newLoops(g) }
}

// loops is the guard's state, shared by the chains of one evaluation of
// the options.
type loops struct {
	g      LoopGuard
	caller func(context.Context, string, http.Header) string
	now    func() time.Time
	// saidUnguarded is set once the first call without a caller was
	// logged.
	saidUnguarded atomic.Bool
	// storeDown is when (UnixNano) the store may be asked again after a
	// failure; 0 while it answers.
	storeDown atomic.Int64

	mu       sync.Mutex
	entries  map[loopKey]*list.Element
	lru      list.List // of *loopEntry, most recently failed first
	byCaller map[string]int
}

type loopKey struct {
	caller, tool string
	args         uint64
}

type loopEntry struct {
	key     loopKey
	code    errs.Code
	count   int
	first   time.Time
	retryAt time.Time
	message string
}

func newLoops(g LoopGuard) *loops {
	if g.Failures <= 0 {
		g.Failures = 3
	}
	if g.Window <= 0 {
		g.Window = 2 * time.Minute
	}
	if g.MaxCalls <= 0 {
		g.MaxCalls = 10_000
	}
	if g.PerSession <= 0 {
		g.PerSession = 64
	}
	g.Except = slices.Clone(g.Except)
	l := &loops{g: g, caller: g.Caller, now: time.Now, entries: map[loopKey]*list.Element{}, byCaller: map[string]int{}}
	if l.caller == nil {
		l.caller = defaultCaller
	}
	return l
}

var errRepeated = errors.New("refused without running: the same call kept failing")

// key returns the call's key; ok is false for a tool the guard leaves
// alone, a call without a caller, or arguments it cannot compare. The
// first call without a caller is logged to o.
func (l *loops) key(ctx context.Context, req *call.Request, o *obs.Observer) (loopKey, bool) {
	if req.Kind != call.Tool || slices.Contains(l.g.Except, req.Name) {
		return loopKey{}, false
	}
	who := l.caller(ctx, req.Session, req.Header)
	if who == "" {
		if !l.saidUnguarded.Load() && l.saidUnguarded.CompareAndSwap(false, true) {
			o.Log(ctx, slog.LevelInfo, "loop guard: calls without a session or credential are not guarded "+
				"(their callers cannot be told apart, and one caller's failures must not refuse another's calls); "+
				"send an Authorization header, or set LoopGuard.Caller",
				slog.String("gen_ai.tool.name", req.Name))
		}
		return loopKey{}, false
	}
	var v any = req.Args
	if v == nil && len(req.Raw) > 0 {
		if json.Unmarshal(req.Raw, &v) != nil {
			return loopKey{}, false
		}
	}
	b, err := json.Marshal(v) // map keys sorted: a canonical form
	if err != nil {
		return loopKey{}, false
	}
	h := fnv.New64a()
	_, _ = h.Write(b)
	return loopKey{caller: who, tool: req.Name, args: h.Sum64()}, true
}

// refuse returns the error a repeated call is answered with, or nil;
// shared says the store holds a record of the call.
func (l *loops) refuse(ctx context.Context, k loopKey, o *obs.Observer) (refusal *errs.Error, shared bool) {
	now := l.now()
	if rec, ok := l.load(ctx, k, o); ok {
		if rec.Count == 0 {
			return nil, false
		}
		e := loopEntry{key: k, code: rec.Code, count: rec.Count, retryAt: rec.RetryAt, message: rec.Message}
		return l.refusal(k, &e, now), true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	el, ok := l.entries[k]
	if !ok {
		return nil, false
	}
	e := el.Value.(*loopEntry)
	if now.Sub(e.first) > l.g.Window {
		l.remove(el)
		return nil, false
	}
	return l.refusal(k, e, now), false
}

// refusal is the answer to a call with e's failures, or nil.
func (l *loops) refusal(k loopKey, e *loopEntry, now time.Time) *errs.Error {
	switch {
	case e.count < l.g.Failures:
		return nil
	case !e.retryAt.IsZero() && !now.Before(e.retryAt):
		return nil // it said when to retry, and that time has come
	}
	msg := "tool " + strconv.Quote(k.tool) + " was not run: this exact call failed " + strconv.Itoa(e.count) +
		" times in the last " + l.g.Window.String() + " (" + e.code.String()
	if e.message != "" {
		msg += ": " + e.message
	}
	msg += "). Change the arguments or use another tool"
	var opts []errs.Detail
	if !e.retryAt.IsZero() {
		wait := e.retryAt.Sub(now)
		msg += ", or wait " + strconv.Itoa(int((wait+time.Second-1)/time.Second)) + "s before calling it again"
		opts = append(opts, errs.RetryAfter(wait))
	}
	return errs.Wrap(e.code, errRepeated, msg+".", opts...)
}

// storeKey is k's name in the store: a hash, so that no caller's name or
// argument reaches the store.
func storeKey(k loopKey) string {
	h := sha256.New()
	_, _ = h.Write([]byte(k.caller))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(k.tool))
	_, _ = h.Write([]byte{0, byte(k.args >> 56), byte(k.args >> 48), byte(k.args >> 40), byte(k.args >> 32),
		byte(k.args >> 24), byte(k.args >> 16), byte(k.args >> 8), byte(k.args)})
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// load reads k's record from the store; ok is false without a store or
// while it fails, and the guard uses its own memory then.
func (l *loops) load(ctx context.Context, k loopKey, o *obs.Observer) (LoopRecord, bool) {
	if l.g.Store == nil || !l.storeUp() {
		return LoopRecord{}, false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), loopStoreWait)
	defer cancel()
	rec, err := l.g.Store.Load(ctx, storeKey(k))
	if !l.storeAnswered(ctx, err, o) {
		return LoopRecord{}, false
	}
	return rec, true
}

func (l *loops) storeUp() bool {
	until := l.storeDown.Load()
	return until == 0 || time.Now().UnixNano() >= until
}

// storeAnswered notes how a store call went, logging each change once.
func (l *loops) storeAnswered(ctx context.Context, err error, o *obs.Observer) bool {
	if err != nil {
		if l.storeDown.Swap(time.Now().Add(loopStoreRetry).UnixNano()) == 0 {
			o.Log(ctx, slog.LevelWarn, "loop guard store failed; the guard uses this replica's memory until it answers",
				slog.String("error", err.Error()))
		}
		return false
	}
	if l.storeDown.Load() != 0 && l.storeDown.Swap(0) != 0 {
		o.Log(ctx, slog.LevelInfo, "loop guard store answers again; replicas share the guard")
	}
	return true
}

// counts reports whether a failure of code counts toward the guard.
func (l *loops) counts(code errs.Code) bool {
	switch code {
	case errs.Canceled, errs.Fatal, errs.ResultTooLarge:
		return false
	case errs.Timeout, errs.Unavailable:
		return l.g.Transient
	}
	return true
}

// record notes how the call ended: a failure that counts adds to its
// entry, anything else forgets it; in the store too, when there is one
// (shared: the store held a record of the call when it started).
func (l *loops) record(ctx context.Context, k loopKey, failed *errs.Error, shared bool, o *obs.Observer) {
	now := l.now()
	counts := failed != nil && l.counts(failed.Code())
	msg := ""
	var retryAt time.Time
	if counts {
		if failed.Code().Public() {
			msg = failed.Message()
			if len(msg) > 512 {
				msg = msg[:512] + "…"
			}
		}
		if ra := failed.RetryAfter(); ra > 0 {
			retryAt = now.Add(ra)
		}
	}
	if l.g.Store != nil && (counts || shared) && l.storeUp() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), loopStoreWait)
		var err error
		if counts {
			err = l.g.Store.Fail(sctx, storeKey(k), LoopRecord{Code: failed.Code(), Count: 1, RetryAt: retryAt, Message: msg}, l.g.Window)
		} else {
			err = l.g.Store.Forget(sctx, storeKey(k))
		}
		cancel()
		l.storeAnswered(ctx, err, o)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	el, ok := l.entries[k]
	if !counts {
		if ok {
			l.remove(el)
		}
		return
	}
	if ok {
		e := el.Value.(*loopEntry)
		if e.code == failed.Code() && now.Sub(e.first) <= l.g.Window {
			e.count++
		} else {
			e.code, e.count, e.first = failed.Code(), 1, now
		}
		e.retryAt, e.message = retryAt, msg
		l.lru.MoveToFront(el)
		return
	}
	if l.byCaller[k.caller] >= l.g.PerSession {
		l.evictCaller(k.caller)
	}
	if l.lru.Len() >= l.g.MaxCalls {
		l.remove(l.lru.Back())
	}
	l.entries[k] = l.lru.PushFront(&loopEntry{key: k, code: failed.Code(), count: 1, first: now, retryAt: retryAt, message: msg})
	l.byCaller[k.caller]++
}

// evictCaller forgets the caller's least recently failed call.
func (l *loops) evictCaller(caller string) {
	for el := l.lru.Back(); el != nil; el = el.Prev() {
		if el.Value.(*loopEntry).key.caller == caller {
			l.remove(el)
			return
		}
	}
}

func (l *loops) remove(el *list.Element) {
	e := el.Value.(*loopEntry)
	l.lru.Remove(el)
	delete(l.entries, e.key)
	if n := l.byCaller[e.key.caller] - 1; n > 0 {
		l.byCaller[e.key.caller] = n
	} else {
		delete(l.byCaller, e.key.caller)
	}
}
