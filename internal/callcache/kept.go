package callcache

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/policy"
	"github.com/mcpwrap/mcpwrap/internal/storewatch"
)

// MetaKey is the _meta key of an answer not made for the call.
const MetaKey = "mcpwrap/cache"

// Bounds of the store: each call of it, and how long it is left alone
// after a failure.
const (
	storeWait  = 50 * time.Millisecond
	storeRetry = time.Second
)

// Store is wrap.CacheStore.
type Store interface {
	Get(ctx context.Context, key, group string) (data []byte, made time.Time, ok bool, err error)
	Set(ctx context.Context, key, group string, data []byte, made time.Time, ttl time.Duration) error
	Forget(ctx context.Context, group string) error
}

// SeenStore is a Store that says which of its generations a lookup saw
// (redislimit's does), for Kept.Get to hand to the call and Kept.Put to
// store under: an answer is then stored only if no Forget, on any replica,
// came between its call's lookup and its Set, and a call joins only a call
// in flight that saw the same generations, so that a read that began after
// a write ended elsewhere neither joins nor keeps one from before it.
type SeenStore interface {
	GetSeen(ctx context.Context, key, group string) (data []byte, made time.Time, seen string, ok bool, err error)
	SetSeen(ctx context.Context, key, group, seen string, data []byte, made time.Time, ttl time.Duration) error
}

// Kept is where a cache keeps answers: the process's LRU or, with a
// Store, the store replicas share. Safe for concurrent use.
type Kept struct {
	LRU *LRU
	// MaxEntries is the bound of the LRU in entries, and of the calls in
	// flight a cache follows.
	MaxEntries int
	Store      Store // nil: the LRU
	Now        func() time.Time
	store      storewatch.Watch
	// forgetAll says a Forget did not reach the store (it failed or was
	// down): every answer there is dropped before it is read or written
	// again.
	forgetAll atomic.Bool
}

// NewKept keeps up to maxEntries answers and maxBytes in the process (a
// caller at most a sixteenth of each; default 10 000 and 64 MiB), or in
// store when it is not nil.
func NewKept(maxEntries, maxBytes int, store Store) *Kept {
	if maxEntries <= 0 {
		maxEntries = 10_000
	}
	if maxBytes <= 0 {
		maxBytes = 64 << 20
	}
	return &Kept{LRU: NewLRU(maxEntries, maxBytes, 16), MaxEntries: maxEntries, Store: store, Now: time.Now,
		store: storewatch.Watch{Retry: storeRetry,
			Failed: "cache store failed; calls are not served from it until it answers",
			Back:   "cache store answers again"}}
}

// Private is a copy of res whose _meta is its own, what the cache keeps
// and hands out: the SDK may write into the _meta of what it sends.
func Private(res call.Result) call.Result {
	if k, ok := res.(call.Keeper); ok {
		return k.WithMeta(MetaKey, nil)
	}
	return res
}

// Get returns the answer kept under key and when it was made; decode reads
// one from the store. seen names the generations of a SeenStore the
// lookup saw ("" for any other): on a miss, the call's flight is keyed by
// them (Key.Seen) and its answer is stored under them (Put).
func (k *Kept) Get(ctx context.Context, key Key, group string, decode func([]byte) (call.Result, error), ob *obs.Observer) (res call.Result, made time.Time, seen string, ok bool) {
	if k.Store == nil {
		res, made, ok = k.getLocal(key)
		return res, made, "", ok
	}
	if decode == nil || !k.storeReady(ctx, ob) {
		return nil, time.Time{}, "", false
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeWait)
	var data []byte
	var err error
	if ss, isSeen := k.Store.(SeenStore); isSeen {
		data, made, seen, ok, err = ss.GetSeen(sctx, key.String(), group)
	} else {
		data, made, ok, err = k.Store.Get(sctx, key.String(), group)
	}
	cancel()
	if !k.store.Answered(ctx, err, ob) || !ok {
		return nil, time.Time{}, seen, false
	}
	if res, err = decode(data); err != nil {
		return nil, time.Time{}, seen, false // a miss: made anew, stored under seen
	}
	return res, made, seen, true
}

// getLocal is Get from the process's own LRU.
func (k *Kept) getLocal(key Key) (call.Result, time.Time, bool) {
	e, ok := k.LRU.Get(key, k.Now())
	if !ok {
		return nil, time.Time{}, false
	}
	return e.Value.(call.Result), e.Stored, true
}

// Put keeps res, a success made at made, under key for ttl: who is its
// caller, name its tool's (or "resources/read"), group the store's name
// of that, gen the generation (Gen) when its call began: the LRU refuses
// it, under its lock, when every answer was dropped since; seen is what
// its call's Get saw, and a SeenStore refuses it when a Forget replaced
// one of those generations since.
func (k *Kept) Put(ctx context.Context, key Key, who, name, group, seen string, res call.Result, made time.Time, ttl time.Duration, gen uint64, ob *obs.Observer) {
	if k.Store == nil {
		k.putLocal(key, who, name, res, made, ttl, gen)
		return
	}
	kp, ok := res.(call.Keeper)
	if !ok || !k.storeReady(ctx, ob) {
		return
	}
	data, err := kp.Encode()
	if err != nil || len(data) > k.LRU.MaxEntry() {
		return
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeWait)
	if ss, isSeen := k.Store.(SeenStore); isSeen {
		err = ss.SetSeen(sctx, key.String(), group, seen, data, made, ttl)
	} else {
		err = k.Store.Set(sctx, key.String(), group, data, made, ttl)
	}
	cancel()
	k.store.Answered(ctx, err, ob)
}

// putLocal is Put into the process's own LRU, which counts a result by its
// size (plus what an entry costs); one that cannot be measured is not kept.
func (k *Kept) putLocal(key Key, who, name string, res call.Result, made time.Time, ttl time.Duration, gen uint64) {
	size := 0
	if s, ok := res.(call.Sizer); ok {
		n, err := s.Measure()
		if err != nil {
			return
		}
		size = n
	}
	k.LRU.Put(key, who, Entry{Value: Private(res), Size: size + 256, Stored: made, Expires: made.Add(ttl), Group: name, Gen: gen})
}

// Forget drops the answers of name ("": all), group being the store's
// name of it. The store is given storeWait, as for any call, and is asked
// even while it is left alone after a failure: a lookup that does not
// reach it is a miss, but a Forget that does not leaves the other
// replicas serving what it drops, and one slow lookup (a busy CPU, a Redis
// busy for a moment) would skip every write's Forget for storeRetry. When
// it fails, every answer in the store is dropped before this process uses
// it again (storeReady), so that a write's Forget is never lost and never
// holds a call up longer than storeWait.
func (k *Kept) Forget(ctx context.Context, name, group string, ob *obs.Observer) {
	k.LRU.Forget(name)
	if k.Store == nil {
		return
	}
	if k.forgetAll.Load() {
		group = ""
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeWait)
	err := k.Store.Forget(sctx, group)
	cancel()
	if k.store.Answered(ctx, err, ob) {
		if group == "" {
			k.forgetAll.Store(false)
		}
		return
	}
	k.forgetAll.Store(true)
}

// storeReady reports whether the store may be read or written: it answers,
// and a Forget it missed was made up for.
func (k *Kept) storeReady(ctx context.Context, ob *obs.Observer) bool {
	if !k.store.Up() {
		return false
	}
	if k.forgetAll.Load() {
		k.Forget(ctx, "", "", ob)
		return !k.forgetAll.Load()
	}
	return true
}

// Gen is the generation of what is kept: how many times every answer was
// dropped (Barrier, a change of the tool list). Put refuses an answer of a
// call that began in an earlier one.
func (k *Kept) Gen() uint64 { return k.LRU.Gen() }

// Barrier ends a call of a tool that may write: every kept answer is
// dropped, and a new generation begins.
func (k *Kept) Barrier(ctx context.Context, ob *obs.Observer) {
	k.ForgetName(ctx, "", ob)
}

// ForgetName drops the answers of the tool name (policy.ResourcesRead:
// every resource's; "": all).
func (k *Kept) ForgetName(ctx context.Context, name string, ob *obs.Observer) {
	g := ""
	if name != "" {
		g = GroupOf(name)
	}
	k.Forget(ctx, name, g, ob)
}

// GroupOf is the store's name of the group of a tool's answers, or of
// every resource's for policy.ResourcesRead.
func GroupOf(name string) string {
	if name == policy.ResourcesRead {
		return Group("r:")
	}
	return Group("t:" + name)
}

// Aged is res carrying its age, and the id of the call it was made for
// when it was joined, under MetaKey.
func Aged(res call.Result, age time.Duration, joined string) call.Result {
	k, ok := res.(call.Keeper)
	if !ok {
		return res
	}
	m := map[string]any{"age_seconds": int64(max(age, 0) / time.Second)}
	if joined != "" {
		m["joined"] = joined
	}
	return k.WithMeta(MetaKey, m)
}

// Hub is every cache of a Wrapper (its own, ForTool's, a tool's
// registration options'): a call of a tool that may write drops what each
// keeps. It is safe for concurrent use.
type Hub struct {
	mu   sync.Mutex
	kept []*Kept
	on   atomic.Bool
}

// Add makes k one of h's caches.
func (h *Hub) Add(k *Kept) {
	h.mu.Lock()
	h.kept = append(h.kept, k)
	h.mu.Unlock()
	h.on.Store(true)
}

// On reports whether h has a cache.
func (h *Hub) On() bool { return h.on.Load() }

func (h *Hub) each(f func(*Kept)) {
	h.mu.Lock()
	kept := h.kept
	h.mu.Unlock()
	for _, k := range kept {
		f(k)
	}
}

// Barrier ends a call of a tool that may write: every cache's answers may
// be stale, whichever tool's they are.
func (h *Hub) Barrier(ctx context.Context, ob *obs.Observer) {
	h.each(func(k *Kept) { k.Barrier(ctx, ob) })
}

// Forget drops the answers of the tool name (policy.ResourcesRead: every
// resource's; "": all) in every cache.
func (h *Hub) Forget(ctx context.Context, name string, ob *obs.Observer) {
	h.each(func(k *Kept) { k.ForgetName(ctx, name, ob) })
}
