package callcache

import (
	"context"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
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

// Kept is where a cache keeps answers: the process's LRU or, with a
// Store, the store replicas share. Safe for concurrent use.
type Kept struct {
	LRU   *LRU
	Store Store // nil: the LRU
	Now   func() time.Time
	store storewatch.Watch
}

// NewKept keeps up to maxEntries answers and maxBytes in the process (a
// caller at most a sixteenth of each), or in store when it is not nil.
func NewKept(maxEntries, maxBytes int, store Store) *Kept {
	return &Kept{LRU: NewLRU(maxEntries, maxBytes, 16), Store: store, Now: time.Now,
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
// one from the store.
func (k *Kept) Get(ctx context.Context, key Key, group string, decode func([]byte) (call.Result, error), ob *obs.Observer) (call.Result, time.Time, bool) {
	if k.Store == nil {
		e, ok := k.LRU.Get(key, k.Now())
		if !ok {
			return nil, time.Time{}, false
		}
		return e.Value.(call.Result), e.Stored, true
	}
	if decode == nil || !k.store.Up() {
		return nil, time.Time{}, false
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeWait)
	data, made, ok, err := k.Store.Get(sctx, key.String(), group)
	cancel()
	if !k.store.Answered(ctx, err, ob) || !ok {
		return nil, time.Time{}, false
	}
	res, err := decode(data)
	if err != nil {
		return nil, time.Time{}, false
	}
	return res, made, true
}

// Put keeps res, a success made at made, under key for ttl: who is its
// caller, name its tool's (or "resources/read"), group the store's name
// of that.
func (k *Kept) Put(ctx context.Context, key Key, who, name, group string, res call.Result, made time.Time, ttl time.Duration, ob *obs.Observer) {
	if k.Store == nil {
		size := 0
		if s, ok := res.(call.Sizer); ok {
			n, err := s.Measure()
			if err != nil {
				return
			}
			size = n
		}
		k.LRU.Put(key, who, Entry{Value: Private(res), Size: size + 256, Stored: made, Expires: made.Add(ttl), Group: name})
		return
	}
	kp, ok := res.(call.Keeper)
	if !ok || !k.store.Up() {
		return
	}
	data, err := kp.Encode()
	if err != nil || len(data) > k.LRU.MaxEntry() {
		return
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeWait)
	err = k.Store.Set(sctx, key.String(), group, data, made, ttl)
	cancel()
	k.store.Answered(ctx, err, ob)
}

// Forget drops the answers of name ("": all), group being the store's
// name of it.
func (k *Kept) Forget(ctx context.Context, name, group string, ob *obs.Observer) {
	k.LRU.Forget(name)
	if k.Store == nil {
		return
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*storeWait)
	err := k.Store.Forget(sctx, group)
	cancel()
	k.store.Answered(ctx, err, ob)
}
