package redislimit

import (
	"context"
	"crypto/rand"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwrap/mcpwrap/internal/callcache"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// defaultCachePrefix is the prefix of the call cache's keys.
const defaultCachePrefix = "mcpwrap:cache:"

// cacheStore is a wrap.CacheStore in Redis.
type cacheStore struct {
	rdb    redis.UniversalClient
	prefix string
}

// The generations a lookup saw travel with its call (wrap's cache finds
// these methods by callcache.SeenStore).
var _ callcache.SeenStore = (*cacheStore)(nil)

// NewCacheStore returns a wrap.CacheStore in Redis, using rdb (ClientOptions
// suits it) with keys under prefix ("mcpwrap:cache:" when ""): one string
// per kept answer, named by the cache's SHA-256 hash of caller, tool and
// arguments and expiring with its TTL, and one generation per group (a tool,
// resources, all) that Forget replaces, so that forgetting a tool costs one
// command whatever the number of its answers. Give it to wrap.Cache.Store so
// that every replica serves the answers any of them made; bound the memory
// with Redis's maxmemory and an allkeys-lru or volatile-lru policy.
// Through wrap.Cache, an answer is stored only if no Forget, on any
// replica, came between its call's lookup and its Set, and a call joins
// only an identical call whose lookup saw the same generations: a read
// that began before a write ended elsewhere is not kept, and one that
// began after it is not given the answer of one from before (GetSeen,
// SetSeen). It is safe for concurrent use.
func NewCacheStore(rdb redis.UniversalClient, prefix string) wrap.CacheStore {
	if prefix == "" {
		prefix = defaultCachePrefix
	}
	return &cacheStore{rdb: rdb, prefix: prefix}
}

// The generations an answer is stored under are its value's head:
// "<all gen>:<group gen>:<made, unix ms>:" then the answer.

// A generation is a random token, never a count: a generation key that
// Redis evicted reads as a miss, and the one Set makes in its place is new,
// so that no answer stored before comes back.

// getScript returns the current generations of every group (KEYS[2]) and
// of the answer's own (KEYS[3]), a missing one made anew as ARGV[1], and
// the answer KEYS[1] when it was stored under them.
var getScript = redis.NewScript(`
redis.call("SET", KEYS[2], ARGV[1], "NX")
redis.call("SET", KEYS[3], ARGV[1], "NX")
local g = redis.call("GET", KEYS[2]) .. ":" .. redis.call("GET", KEYS[3]) .. ":"
local v = redis.call("GET", KEYS[1])
if not v or string.sub(v, 1, #g) ~= g then return {g} end
return {g, string.sub(v, #g + 1)}
`)

// setScript stores ARGV[1] (made, then the answer) under KEYS[1] for ARGV[2]
// milliseconds, headed by the current generations (a missing one becomes
// ARGV[3], a new token), unless ARGV[4] names other ones: those its call's
// Get saw, before a Forget replaced one.
var setScript = redis.NewScript(`
redis.call("SET", KEYS[2], ARGV[3], "NX")
redis.call("SET", KEYS[3], ARGV[3], "NX")
local g = redis.call("GET", KEYS[2]) .. ":" .. redis.call("GET", KEYS[3]) .. ":"
if ARGV[4] ~= "" and ARGV[4] ~= g then return 0 end
redis.call("SET", KEYS[1], g .. ARGV[1], "PX", ARGV[2])
return 1
`)

// token is a new generation.
func token() string { return rand.Text()[:16] }

func (s *cacheStore) keys(key, group string) []string {
	return []string{s.prefix + "a:" + key, s.prefix + "g:", s.prefix + "g:" + group}
}

// Get returns the answer stored under key.
func (s *cacheStore) Get(ctx context.Context, key, group string) ([]byte, time.Time, bool, error) {
	data, made, _, ok, err := s.GetSeen(ctx, key, group)
	return data, made, ok, err
}

// GetSeen is Get, also returning the generations it saw, for the call's
// SetSeen on a miss and the key of its flight (wrap joins only calls that
// saw the same).
func (s *cacheStore) GetSeen(ctx context.Context, key, group string) (data []byte, made time.Time, seen string, ok bool, err error) {
	r, err := getScript.Run(ctx, s.rdb, s.keys(key, group), token()).StringSlice()
	if err != nil || len(r) == 0 {
		return nil, time.Time{}, "", false, err
	}
	if len(r) < 2 {
		return nil, time.Time{}, r[0], false, nil
	}
	at, answer, cut := strings.Cut(r[1], ":")
	ms, err := strconv.ParseInt(at, 10, 64)
	if !cut || err != nil {
		return nil, time.Time{}, r[0], false, nil
	}
	return []byte(answer), time.UnixMilli(ms), r[0], true, nil
}

// Set stores data under key for ttl, under the current generations.
func (s *cacheStore) Set(ctx context.Context, key, group string, data []byte, made time.Time, ttl time.Duration) error {
	return s.SetSeen(ctx, key, group, "", data, made, ttl)
}

// SetSeen is Set under the generations seen, those its call's GetSeen saw
// when it missed; nothing is stored when a Forget has replaced one since.
func (s *cacheStore) SetSeen(ctx context.Context, key, group, seen string, data []byte, made time.Time, ttl time.Duration) error {
	v := strconv.AppendInt(make([]byte, 0, len(data)+24), made.UnixMilli(), 10)
	v = append(append(v, ':'), data...)
	return setScript.Run(ctx, s.rdb, s.keys(key, group), v, max(ttl.Milliseconds(), 1), token(), seen).Err()
}

// Forget gives group a new generation ("": every group's).
func (s *cacheStore) Forget(ctx context.Context, group string) error {
	return s.rdb.Set(ctx, s.prefix+"g:"+group, token(), 0).Err()
}
