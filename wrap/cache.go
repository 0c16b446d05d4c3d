package wrap

import (
	"context"
	"strconv"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/callcache"
	"github.com/mcpwrap/mcpwrap/internal/deadline"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
	"github.com/mcpwrap/mcpwrap/internal/obs"
)

// Cache says how WithCache answers calls once. The zero value gives the
// defaults.
//
// A call identical to one still running — same caller, same tool, same
// arguments in canonical form (key order, white space and number forms do
// not matter) — joins it and gets its answer: the handler runs once. That
// is done for tools annotated read-only or idempotent, for tools whose
// retry policy says Idempotent, and for every tool when Join is set. A repeat of a
// call that timed out while its handler still runs joins it too, within
// the repeat's own timeout, and the answer of such a call that ended after
// its timeout is given to its repeats for Window instead of running it
// again.
//
// A success of a tool annotated read-only (or served with ReadOnly set)
// and a resources/read's contents are kept for TTL and given to the same
// caller's identical calls; an error, an input_required round or a task is
// never kept. A caller is the authorization caller's subject and scopes
// (ByScopes: its scopes alone), or, without one, the session id and a hash
// of the Authorization header, as LoopGuard's default Caller; a call with
// none of these is neither kept nor joined. A call of any tool that is not
// read-only may write: once it has run (in place or as a task), every
// answer every cache of the Wrapper kept is dropped (here and in the
// Store), and a read that was in flight keeps its answer for its own
// caller only. An answer that was not made
// for the call carries its age in _meta, "mcpwrap/cache":
// {"age_seconds": N}, with "joined": the call id it was made for when it
// was joined.
type Cache struct {
	// TTL is how long an answer is kept; default 30 seconds. A negative
	// TTL keeps nothing: calls are only joined.
	TTL time.Duration
	// Window is how long the answer of a call that ended after its
	// timeout is given to its repeats; default 2 minutes.
	Window time.Duration
	// ReadOnly keeps the tools this configuration serves as read-only
	// whatever their annotations say: give it to one tool's options.
	ReadOnly bool
	// Join joins identical calls of every tool this configuration serves,
	// not only those safe to repeat: for a tool that must not run twice
	// for one request of the model (a payment, a message).
	Join bool
	// ByScopes shares answers between callers granted the same scopes,
	// for tools whose answer depends on nothing else about the caller.
	ByScopes bool
	// MaxEntries and MaxBytes bound the answers kept in the process;
	// default 10 000 and 64 MiB. A caller holds at most a sixteenth of
	// each, and an answer larger than that is not kept.
	MaxEntries, MaxBytes int
	// Store shares the kept answers between replicas (the redislimit
	// package has one in Redis); nil keeps them in the process. While it
	// fails or takes longer than 50ms, calls are not served from it
	// (logged once), never refused.
	Store CacheStore
}

// CacheStore keeps answers where replicas share them. Keys and groups are
// hex SHA-256 hashes: no caller, argument or credential reaches the store.
// Its methods must be safe for concurrent use; each is given 50ms, and a
// Forget that fails is made up for by a Forget of every group before the
// store is read or written again. A store that also has redislimit's
// GetSeen and SetSeen methods (a lookup saying which generations of the
// store it saw, a Set under those only) keeps no answer of a read that
// began before a Forget on another replica, and joins no read that began
// after it to one from before.
type CacheStore interface {
	// Get returns the answer stored under key and when it was made; ok is
	// false when there is none, it expired, or its group was forgotten
	// after it was stored.
	Get(ctx context.Context, key, group string) (data []byte, made time.Time, ok bool, err error)
	// Set stores data, made at made, under key in group for ttl.
	Set(ctx context.Context, key, group string, data []byte, made time.Time, ttl time.Duration) error
	// Forget makes every answer of group unreadable; "" means every group.
	Forget(ctx context.Context, group string) error
}

// WithCache turns on the call cache (see Cache). It is off by default.
// Given to one tool's options, it sets that tool's Cache; the answers are
// kept in the Wrapper's store and bounds when it has a cache.
func WithCache(c Cache) Option {
	return func(cfg *config) {
		var st *cacheState
		if cfg.cache != nil {
			st = cfg.cache.state
		}
		cfg.cache = c.evaluate(st)
	}
}

// Forget drops the kept answers of the tool name, for every caller, here
// and in the shared store: what a handler calls once it changed what the
// tool reads. The name "resources/read" drops every resource's, "" every
// answer.
func (w *Wrapper) Forget(ctx context.Context, name string) {
	w.cfg.caches.Forget(ctx, name, w.cfg.observer)
}

// mayWrite says req calls a tool that is not read-only: by its
// annotations, or by Cache.ReadOnly given to its configuration.
func mayWrite(ctx context.Context, req *call.Request, cfg *config) bool {
	if req.Kind != call.Tool || cfg.cache != nil && cfg.cache.readOnly {
		return false
	}
	info := toolInfo(ctx, cfg, req)
	return !info.Known || !info.ReadOnly
}

// cacheConfig is Cache evaluated; state is shared by the chains of a
// Wrapper.
type cacheConfig struct {
	ttl, window              time.Duration
	readOnly, join, byScopes bool
	state                    *cacheState
	// c keeps the bounds and store until newConfig makes the state.
	c Cache
}

func (c Cache) evaluate(st *cacheState) *cacheConfig {
	cc := &cacheConfig{ttl: c.TTL, window: c.Window, readOnly: c.ReadOnly, join: c.Join, byScopes: c.ByScopes, state: st, c: c}
	if cc.ttl == 0 {
		cc.ttl = 30 * time.Second
	}
	if cc.window <= 0 {
		cc.window = 2 * time.Minute
	}
	return cc
}

// cacheState is what a cache keeps (answers) and follows (calls in
// flight).
type cacheState struct {
	*callcache.Kept
	flights *callcache.Flights[flown]
}

// flown is a flight's outcome as its joiners get it.
type flown struct{ o outcome }

func newCacheState(c Cache) *cacheState {
	var store callcache.Store
	if c.Store != nil {
		store = c.Store
	}
	kept := callcache.NewKept(c.MaxEntries, c.MaxBytes, store)
	return &cacheState{Kept: kept, flights: callcache.NewFlights[flown](kept.MaxEntries)}
}

// cachePlan is what the cache does for one call.
type cachePlan struct {
	// read says the tool only reads (its annotations or Cache.ReadOnly):
	// a call of any other tool may write, and drops every kept answer.
	keep, join, read bool
	// name is the tool's, or resourcesRead; who is the caller.
	name, who string
	key       callcache.Key
	// gen is the cache's generation when the call's flight began; seen
	// the shared store's generations its lookup saw (callcache.Kept.Get).
	gen  uint64
	seen string
}

// flightKey is the key of p's flight: a kept read's carries the cache's
// generation (callcache.Key.At) and the store's its lookup saw
// (callcache.Key.Seen), so that it never joins a read from before a write,
// here or on another replica.
func (p *cachePlan) flightKey() callcache.Key {
	if p.keep {
		return p.key.At(p.gen).Seen(p.seen)
	}
	return p.key
}

// plan decides whether req is kept and joined, and its key; ok is false
// when the cache leaves it alone.
func (c *cacheConfig) plan(ctx context.Context, req *call.Request, cfg *config, rec *record) (p cachePlan, ok bool) {
	if rec.round != nil || req.Kind == call.Prompt {
		return p, false // a multi round-trip round carries the client's answers
	}
	kind := "r"
	p.name = resourcesRead
	if req.Kind == call.Resource {
		p.keep, p.join, p.read = c.ttl > 0, true, true
	} else {
		p.name, kind = req.Name, "t"
		p.keep, p.join, p.read = c.toolPlan(ctx, req, cfg)
		if !p.keep && !p.join {
			return p, false
		}
	}
	p.who = req.CacheCaller(ctx, c.byScopes)
	if p.who == "" {
		return p, false
	}
	p.key, ok = callcache.KeyOf(p.who, kind, req.Name, req.Args, req.Raw)
	return p, ok
}

// toolPlan says whether a tool's answers are kept and its calls joined:
// by its own Cache, its retry policy or its annotations.
func (c *cacheConfig) toolPlan(ctx context.Context, req *call.Request, cfg *config) (keep, join, read bool) {
	keep, join = c.readOnly && c.ttl > 0, c.join || cfg.retry != nil && cfg.retry.idempotent
	switch {
	case keep && join:
		return keep, join, true
	case c.ttl > 0 && c.state.Store == nil && c.state.LRU.Holds(req.Name):
		// The tool's answers are kept, so it was found read-only, and a
		// change of the tool list would have dropped them: a hit needs no
		// look-up of the tool.
		return true, true, true
	}
	return c.annotated(toolInfo(ctx, cfg, req), keep, join)
}

// annotated adds to keep and join what the tool's annotations allow.
func (c *cacheConfig) annotated(info call.Info, keep, join bool) (bool, bool, bool) {
	read := c.readOnly || info.Known && info.ReadOnly
	keep = c.ttl > 0 && (keep || read)
	return keep, join || keep || info.Known && (info.ReadOnly || info.Idempotent), read
}

// cached is the cache layer, cache(limit(admit(timeout(retry(…))))): a
// kept answer is given at once; a call identical to one in flight waits
// for its outcome; any other runs the inner layers, leading the identical
// calls that come meanwhile, and its success is kept. A call that is kept
// is always joined (plan).
func cached(ctx context.Context, req *call.Request, next handler, cfg *config, rec *record, o *outcome) admitted {
	c := cfg.cache
	p, ok := c.plan(ctx, req, cfg, rec)
	if req.Kind == call.Tool && !p.read && (p.name != "" || mayWrite(ctx, req, cfg)) {
		// A tool that may write: what was kept may be stale once it ran.
		defer cfg.caches.Barrier(ctx, cfg.observer)
	}
	if !ok {
		return admitRun(ctx, req, next, cfg, rec, o)
	}
	st := c.state
	if p.keep {
		res, made, seen, ok := st.get(ctx, p, req, cfg.observer)
		if ok {
			st.hit(rec, o, res, made)
			return admitted{}
		}
		p.seen = seen
	}
	rec.cache = "miss"
	return st.fly(ctx, req, next, cfg, rec, o, p)
}

// fly leads the call's flight, or joins the identical call in flight.
func (st *cacheState) fly(ctx context.Context, req *call.Request, next handler, cfg *config, rec *record, o *outcome, p cachePlan) admitted {
	for range 3 { // a leader whose own client went away leaves the call to a joiner
		p.gen = st.Gen() // a write that ends before this call does makes its answer stale
		f, lead := st.flights.Lead(p.flightKey(), rec.id(), st.Now())
		if lead && p.keep && st.Store == nil && st.keptMeanwhile(ctx, req, cfg, rec, o, p, f) {
			return admitted{}
		}
		if lead {
			return st.lead(ctx, req, next, cfg, rec, o, p, f)
		}
		if !join(ctx, req, cfg, rec, o, f) {
			break
		}
	}
	return admitted{}
}

// keptMeanwhile answers the call, and ends its flight f, with the answer
// the flight before kept between the call's first look and its lead, if
// there is one.
func (st *cacheState) keptMeanwhile(ctx context.Context, req *call.Request, cfg *config, rec *record, o *outcome, p cachePlan, f *callcache.Flight[flown]) bool {
	res, made, _, ok := st.get(ctx, p, req, cfg.observer)
	if ok {
		st.flights.End(p.flightKey(), f, flown{o: outcome{res: res}}, made)
		st.hit(rec, o, res, made)
	}
	return ok
}

// hit answers the call with res, kept at made.
func (st *cacheState) hit(rec *record, o *outcome, res call.Result, made time.Time) {
	rec.cache = "hit"
	o.res = callcache.Aged(res, st.Now().Sub(made), "")
}

// lead runs the inner layers for the flight f and ends it: at once, or,
// when the call was answered before its handler returned (a timeout),
// when the handler returns (the timeout's worker calls rec.ended).
func (st *cacheState) lead(ctx context.Context, req *call.Request, next handler, cfg *config, rec *record, o *outcome, p cachePlan, f *callcache.Flight[flown]) admitted {
	ttl := cfg.cache.ttl
	rec.ended = func(late *outcome) {
		now := st.Now()
		if p.keep { // kept first: a call that finds no flight finds the answer
			st.put(context.WithoutCancel(ctx), p, ttl, late, now, cfg.observer)
		}
		st.flights.End(p.flightKey(), f, kept(late), now)
	}
	adm := admitRun(ctx, req, next, cfg, rec, o)
	if o.detached {
		st.flights.Detach(f, cfg.cache.window)
		return adm
	}
	select {
	case <-f.Done(): // the timeout's worker ended it (rec.ended)
	default:
		if p.keep {
			st.put(ctx, p, ttl, o, st.Now(), cfg.observer)
		}
		st.flights.End(p.flightKey(), f, kept(o), st.Now())
	}
	return adm
}

// join waits, within the call's own timeout, for the outcome of the
// identical call f, and makes it the call's; it reports true when that
// call's own client went away and this call should lead instead.
func join(ctx context.Context, req *call.Request, cfg *config, rec *record, o *outcome, f *callcache.Flight[flown]) (again bool) {
	rec.cache = "joined"
	var expired <-chan time.Time
	d := cfg.timeoutFor()
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-f.Done():
	case <-expired:
		o.err = errs.Wrap(errs.Timeout, deadline.ErrTimedOut, joinTimeout(cfg, rec, f, d))
		o.sideEffects = errmap.SideEffectsNone
		return false
	case <-ctx.Done():
		o.err = errs.From(context.Cause(ctx))
		o.sideEffects = errmap.SideEffectsNone
		return false
	}
	v, ended := f.Value()
	if v.o.err != nil && v.o.err.Code() == errs.Canceled && ctx.Err() == nil {
		return true
	}
	*o = v.o
	o.detached = false
	if o.res != nil {
		o.res = joinedResult(cfg, o, ended, f.LeaderID)
	}
	return false
}

// joinedResult is the leader's result as a joiner gets it: a success aged
// since the flight ended, anything else as the leader's private result.
func joinedResult(cfg *config, o *outcome, ended time.Time, leader string) call.Result {
	if o.err == nil && o.proto == nil && o.res.Status() == call.Success {
		return callcache.Aged(o.res, cfg.cache.state.Now().Sub(ended), leader)
	}
	return callcache.Private(o.res)
}

// joinTimeout is the message of a call that waited d for the identical
// call f in vain.
func joinTimeout(cfg *config, rec *record, f *callcache.Flight[flown], d time.Duration) string {
	msg := "tool " + strconv.Quote(rec.tool) + " was not run again: the identical call " + f.LeaderID + " made " +
		errmap.TwoFigures(time.Since(f.Start)).String() + " ago is still running"
	if cfg.cache.state.flights.Detached(f) {
		return msg + " after its own timeout, and this call waited " + d.String() + " for it. Its answer is given to a repeat " +
			"of this call made within " + cfg.cache.window.String() + " of its end"
	}
	return msg + ", and this call waited " + d.String() + " for it"
}

// kept is o with a result the cache may keep and share.
func kept(o *outcome) flown {
	v := flown{o: *o}
	if v.o.res != nil {
		v.o.res = callcache.Private(v.o.res)
	}
	return v
}

// get returns p's kept answer and when it was made, or on a miss the
// store's generations the lookup saw.
func (st *cacheState) get(ctx context.Context, p cachePlan, req *call.Request, ob *obs.Observer) (call.Result, time.Time, string, bool) {
	return st.Get(ctx, p.key, callcache.GroupOf(p.name), req.Decode, ob)
}

// put keeps o's result when it is a success that can be kept.
func (st *cacheState) put(ctx context.Context, p cachePlan, ttl time.Duration, o *outcome, made time.Time, ob *obs.Observer) {
	if o.err != nil || o.proto != nil || o.panic != nil || o.res == nil || o.res.Status() != call.Success {
		return
	}
	if st.Gen() != p.gen {
		return // a write ended while the call ran: its answer may be stale
	}
	st.Put(ctx, p.key, p.who, p.name, callcache.GroupOf(p.name), p.seen, o.res, made, ttl, p.gen, ob)
}
