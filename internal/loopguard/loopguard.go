// Package loopguard is the engine of wrap.LoopGuard: it counts each
// caller's identical failing calls in a bounded memory (or a shared
// Store) and refuses the next one once they fail too often.
package loopguard

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
	"github.com/mcpwrap/mcpwrap/internal/storewatch"
)

// Config is wrap.LoopGuard, evaluated: Caller is set.
type Config struct {
	Failures             int
	Window               time.Duration
	Transient            bool
	MaxCalls, PerSession int
	Except               []string
	Store                Store
	Caller               func(ctx context.Context, session string, header http.Header) string
}

// Store is wrap.LoopStore's methods; a Store without Load is none.
type Store struct {
	Load   func(ctx context.Context, key string) (Record, error)
	Fail   func(ctx context.Context, key string, r Record, window time.Duration) error
	Forget func(ctx context.Context, key string) error
}

// Record is wrap.LoopRecord.
type Record struct {
	Code    errs.Code
	Count   int
	RetryAt time.Time
	Message string
}

// storeWait bounds each call of the store; after a failure the guard asks
// the store again only storeRetry later.
const (
	storeWait  = 500 * time.Millisecond
	storeRetry = time.Second
)

// Guard is the guard's state, shared by the chains of one evaluation of
// the options; safe for concurrent use.
type Guard struct {
	g      Config
	caller func(context.Context, string, http.Header) string
	now    func() time.Time
	// saidUnguarded is set once the first call without a caller was
	// logged.
	saidUnguarded atomic.Bool
	// store is the Store's health.
	store storewatch.Watch

	mu       sync.Mutex
	entries  map[Key]*list.Element
	lru      list.List // of *entry, most recently failed first
	byCaller map[string]int
}

// Key names one call: its caller, tool and arguments.
type Key struct {
	caller, tool string
	args         uint64
}

type entry struct {
	key     Key
	code    errs.Code
	count   int
	first   time.Time
	retryAt time.Time
	message string
}

// New is a guard configured by g; zero fields take the defaults.
func New(g Config) *Guard {
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
	l := &Guard{g: g, caller: g.Caller, now: time.Now, entries: map[Key]*list.Element{}, byCaller: map[string]int{}}
	l.store = storewatch.Watch{Retry: storeRetry,
		Failed: "loop guard store failed; the guard uses this replica's memory until it answers",
		Back:   "loop guard store answers again; replicas share the guard"}
	return l
}

var errRepeated = errors.New("refused without running: the same call kept failing")

// Key returns the call's key; ok is false for a tool the guard leaves
// alone, a call without a caller, or arguments it cannot compare. The
// first call without a caller is logged to o.
func (l *Guard) Key(ctx context.Context, req *call.Request, o *obs.Observer) (Key, bool) {
	if req.Kind != call.Tool || slices.Contains(l.g.Except, req.Name) {
		return Key{}, false
	}
	who := l.caller(ctx, req.Session, req.Header)
	if who == "" {
		l.sayUnguarded(ctx, req.Name, o)
		return Key{}, false
	}
	args, ok := argsHash(req)
	return Key{caller: who, tool: req.Name, args: args}, ok
}

// sayUnguarded logs, the first time only, that a call without a caller is
// not guarded.
func (l *Guard) sayUnguarded(ctx context.Context, tool string, o *obs.Observer) {
	if l.saidUnguarded.Load() || !l.saidUnguarded.CompareAndSwap(false, true) {
		return
	}
	o.Log(ctx, slog.LevelInfo, "loop guard: calls without a session or credential are not guarded "+
		"(their callers cannot be told apart, and one caller's failures must not refuse another's calls); "+
		"send an Authorization header, or set LoopGuard.Caller",
		slog.String("gen_ai.tool.name", tool))
}

// argsHash hashes the call's arguments in a canonical form (JSON, map keys
// sorted); ok is false for arguments that cannot be compared.
func argsHash(req *call.Request) (uint64, bool) {
	var v any = req.Args
	if v == nil && len(req.Raw) > 0 && json.Unmarshal(req.Raw, &v) != nil {
		return 0, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return 0, false
	}
	h := fnv.New64a()
	_, _ = h.Write(b)
	return h.Sum64(), true
}

// Refuse returns the error a repeated call is answered with, or nil;
// shared says the store holds a record of the call.
func (l *Guard) Refuse(ctx context.Context, k Key, o *obs.Observer) (refusal *errs.Error, shared bool) {
	now := l.now()
	if rec, ok := l.load(ctx, k, o); ok {
		if rec.Count == 0 {
			return nil, false
		}
		e := entry{key: k, code: rec.Code, count: rec.Count, retryAt: rec.RetryAt, message: rec.Message}
		return l.refusal(k, &e, now), true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	el, ok := l.entries[k]
	if !ok {
		return nil, false
	}
	e := el.Value.(*entry)
	if now.Sub(e.first) > l.g.Window {
		l.remove(el)
		return nil, false
	}
	return l.refusal(k, e, now), false
}

// refusal is the answer to a call with e's failures, or nil.
func (l *Guard) refusal(k Key, e *entry, now time.Time) *errs.Error {
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
func storeKey(k Key) string {
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
func (l *Guard) load(ctx context.Context, k Key, o *obs.Observer) (Record, bool) {
	if !l.storeUp() {
		return Record{}, false
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeWait)
	defer cancel()
	rec, err := l.g.Store.Load(ctx, storeKey(k))
	if !l.store.Answered(ctx, err, o) {
		return Record{}, false
	}
	return rec, true
}

// counts reports whether a failure of code counts toward the guard.
func (l *Guard) counts(code errs.Code) bool {
	switch code {
	case errs.Canceled, errs.Fatal, errs.ResultTooLarge:
		return false
	case errs.Timeout, errs.Unavailable:
		return l.g.Transient
	}
	return true
}

// Record notes how the call ended: a failure that counts adds to its
// entry, anything else forgets it; in the store too, when there is one
// (shared: the store held a record of the call when it started).
func (l *Guard) Record(ctx context.Context, k Key, failed *errs.Error, shared bool, o *obs.Observer) {
	now := l.now()
	counts := failed != nil && l.counts(failed.Code())
	var msg string
	var retryAt time.Time
	if counts {
		msg, retryAt = remembered(failed, now)
	}
	if (counts || shared) && l.storeUp() {
		l.share(ctx, k, failed, counts, msg, retryAt, o)
	}
	l.remember(k, failed, counts, now, retryAt, msg)
}

// remember updates the guard's own memory of the call k: a failure that
// counts is added to its entry, anything else forgets it.
func (l *Guard) remember(k Key, failed *errs.Error, counts bool, now, retryAt time.Time, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	el, ok := l.entries[k]
	switch {
	case !counts:
		if ok {
			l.remove(el)
		}
	case ok:
		el.Value.(*entry).again(failed.Code(), now, l.g.Window, retryAt, msg)
		l.lru.MoveToFront(el)
	default:
		l.add(&entry{key: k, code: failed.Code(), count: 1, first: now, retryAt: retryAt, message: msg})
	}
}

// storeUp reports whether there is a store and it answers.
func (l *Guard) storeUp() bool { return l.g.Store.Load != nil && l.store.Up() }

// again counts one more failure of code in e, or starts counting anew when
// the code changed or the window passed.
func (e *entry) again(code errs.Code, now time.Time, window time.Duration, retryAt time.Time, msg string) {
	if e.code == code && now.Sub(e.first) <= window {
		e.count++
	} else {
		e.code, e.count, e.first = code, 1, now
	}
	e.retryAt, e.message = retryAt, msg
}

// add keeps e, making room for it: the caller's oldest entry goes when it
// has PerSession of them, the oldest of all when there are MaxCalls. The
// caller holds l.mu.
func (l *Guard) add(e *entry) {
	if l.byCaller[e.key.caller] >= l.g.PerSession {
		l.evictCaller(e.key.caller)
	}
	if l.lru.Len() >= l.g.MaxCalls {
		l.remove(l.lru.Back())
	}
	l.entries[e.key] = l.lru.PushFront(e)
	l.byCaller[e.key.caller]++
}

// remembered is what the guard keeps of a failure that counts: the
// message the model was shown (when it may read it, at most 512 bytes)
// and when the failure said to retry.
func remembered(failed *errs.Error, now time.Time) (msg string, retryAt time.Time) {
	if failed.Code().Public() {
		msg = failed.Message()
		if len(msg) > 512 {
			msg = msg[:512] + "…"
		}
	}
	if ra := failed.RetryAfter(); ra > 0 {
		retryAt = now.Add(ra)
	}
	return msg, retryAt
}

// share tells the store of a failure that counts, or that the call no
// longer fails.
func (l *Guard) share(ctx context.Context, k Key, failed *errs.Error, counts bool, msg string, retryAt time.Time, o *obs.Observer) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeWait)
	defer cancel()
	var err error
	if counts {
		err = l.g.Store.Fail(sctx, storeKey(k), Record{Code: failed.Code(), Count: 1, RetryAt: retryAt, Message: msg}, l.g.Window)
	} else {
		err = l.g.Store.Forget(sctx, storeKey(k))
	}
	l.store.Answered(ctx, err, o)
}

// evictCaller forgets the caller's least recently failed call.
func (l *Guard) evictCaller(caller string) {
	for el := l.lru.Back(); el != nil; el = el.Prev() {
		if el.Value.(*entry).key.caller == caller {
			l.remove(el)
			return
		}
	}
}

func (l *Guard) remove(el *list.Element) {
	e := el.Value.(*entry)
	l.lru.Remove(el)
	delete(l.entries, e.key)
	if n := l.byCaller[e.key.caller] - 1; n > 0 {
		l.byCaller[e.key.caller] = n
	} else {
		delete(l.byCaller, e.key.caller)
	}
}
