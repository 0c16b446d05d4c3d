package redislimit

import (
	"context"
	"crypto/rand"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwrap/mcpwrap/wrap"
)

// defaultCachePrefix is the prefix of the call cache's keys.
const defaultCachePrefix = "mcpwrap:cache:"

// cacheStore is a wrap.CacheStore in Redis.
type cacheStore struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewCacheStore returns a wrap.CacheStore in Redis, using rdb (ClientOptions
// suits it) with keys under prefix ("mcpwrap:cache:" when ""): one string
// per kept answer, named by the cache's SHA-256 hash of caller, tool and
// arguments and expiring with its TTL, and one generation per group (a tool,
// resources, all) that Forget replaces, so that forgetting a tool costs one
// command whatever the number of its answers. Give it to wrap.Cache.Store so
// that every replica serves the answers any of them made; bound the memory
// with Redis's maxmemory and an allkeys-lru or volatile-lru policy. It is
// safe for concurrent use.
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

// getScript returns the answer KEYS[1] when it was stored under the
// current generations of every group (KEYS[2]) and of its own (KEYS[3]).
var getScript = redis.NewScript(`
local v = redis.call("GET", KEYS[1])
if not v then return false end
local a, b = redis.call("GET", KEYS[2]), redis.call("GET", KEYS[3])
if not a or not b then return false end
local g = a .. ":" .. b .. ":"
if string.sub(v, 1, #g) ~= g then return false end
return string.sub(v, #g + 1)
`)

// setScript stores ARGV[1] (made, then the answer) under KEYS[1] for ARGV[2]
// milliseconds, headed by the current generations; a missing one becomes
// ARGV[3], a new token.
var setScript = redis.NewScript(`
redis.call("SET", KEYS[2], ARGV[3], "NX")
redis.call("SET", KEYS[3], ARGV[3], "NX")
local g = redis.call("GET", KEYS[2]) .. ":" .. redis.call("GET", KEYS[3]) .. ":"
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
	v, err := getScript.Run(ctx, s.rdb, s.keys(key, group)).Text()
	if err == redis.Nil {
		return nil, time.Time{}, false, nil
	}
	if err != nil {
		return nil, time.Time{}, false, err
	}
	for i := 0; i < len(v); i++ {
		if v[i] == ':' {
			ms, err := strconv.ParseInt(v[:i], 10, 64)
			if err != nil {
				return nil, time.Time{}, false, nil
			}
			return []byte(v[i+1:]), time.UnixMilli(ms), true, nil
		}
	}
	return nil, time.Time{}, false, nil
}

// Set stores data under key for ttl.
func (s *cacheStore) Set(ctx context.Context, key, group string, data []byte, made time.Time, ttl time.Duration) error {
	v := strconv.AppendInt(make([]byte, 0, len(data)+24), made.UnixMilli(), 10)
	v = append(append(v, ':'), data...)
	return setScript.Run(ctx, s.rdb, s.keys(key, group), v, max(ttl.Milliseconds(), 1), token()).Err()
}

// Forget gives group a new generation ("": every group's).
func (s *cacheStore) Forget(ctx context.Context, group string) error {
	return s.rdb.Set(ctx, s.prefix+"g:"+group, token(), 0).Err()
}
