package jwtauth

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/mcpwrap/mcpwrap/wrap/authz"
)

// The defaults of the cache of verified tokens.
const (
	defaultCacheTTL = time.Minute
	cacheEntries    = 10000
)

// verifiedTokens remembers the callers of tokens already verified, by the
// SHA-256 of the token, so that a client presenting the same token on
// every request pays one signature check per TTL instead of one per
// request. An entry is used only while its token is unexpired (with the
// skew), younger than the TTL, and the key that signed it is still
// published: a key the issuer removed stops verifying its tokens at the
// refetch that finds it gone, cached or not.
type verifiedTokens struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[[sha256.Size]byte]verifiedToken
}

type verifiedToken struct {
	caller   authz.Caller
	kid, alg string
	until    time.Time
}

func (t *verifiedTokens) get(sum [sha256.Size]byte, now time.Time, published func(kid, alg string) bool) (authz.Caller, bool) {
	if t == nil {
		return authz.Caller{}, false
	}
	t.mu.Lock()
	e, ok := t.m[sum]
	t.mu.Unlock()
	if !ok || !now.Before(e.until) || !published(e.kid, e.alg) {
		return authz.Caller{}, false
	}
	return e.caller, true
}

func (t *verifiedTokens) put(sum [sha256.Size]byte, e verifiedToken) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.m) >= cacheEntries {
		t.evict()
	}
	t.m[sum] = e
}

// evict makes room in a full cache: it drops expired entries, then any
// (map order is random), so that memory stays bounded whatever number of
// tokens arrives. The caller holds t.mu.
func (t *verifiedTokens) evict() {
	now := time.Now()
	for k, old := range t.m {
		if !now.Before(old.until) {
			delete(t.m, k)
		}
	}
	for k := range t.m {
		if len(t.m) < cacheEntries {
			break
		}
		delete(t.m, k)
	}
}
