package redislimit

import (
	"context"
	"crypto/rand"
	"strconv"
	"strings"
	"sync"
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
	// missed holds, for a key whose Get found no answer, the generations
	// that Get saw, until its Set: an answer is stored only under them,
	// so that one whose call began before a Forget on any replica is not
	// kept under the generation that Forget made.
	mu     sync.Mutex
	missed map[string]string
}

// maxMissed bounds missed; when it is full (calls that miss and never
// store), it starts again empty, and the Sets of the calls then in flight
// store under the current generations, unchecked.
const maxMissed = 10000

// NewCacheStore returns a wrap.CacheStore in Redis, using rdb (ClientOptions
// suits it) with keys under prefix ("mcpwrap:cache:" when ""): one string
// per kept answer, named by the cache's SHA-256 hash of caller, tool and
// arguments and expiring with its TTL, and one generation per group (a tool,
// resources, all) that Forget replaces, so that forgetting a tool costs one
// command whatever the number of its answers. Give it to wrap.Cache.Store so
// that every replica serves the answers any of them made; bound the memory
// with Redis's maxmemory and an allkeys-lru or volatile-lru policy. An
// answer whose Get missed is stored only if no Forget, on any replica,
// came between that Get and its Set: a read that began before a write
// ended elsewhere is not kept. It is safe for concurrent use.
func NewCacheStore(rdb redis.UniversalClient, prefix string) wrap.CacheStore {
	if prefix == "" {
		prefix = defaultCachePrefix
	}
	return &cacheStore{rdb: rdb, prefix: prefix, missed: make(map[string]string)}
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

// Get returns the answer stored under key; on a miss it remembers the
// generations it saw for key's Set.
func (s *cacheStore) Get(ctx context.Context, key, group string) ([]byte, time.Time, bool, error) {
	r, err := getScript.Run(ctx, s.rdb, s.keys(key, group), token()).StringSlice()
	if err != nil {
		return nil, time.Time{}, false, err
	}
	if len(r) < 2 {
		if len(r) == 1 {
			s.missedAt(key, r[0])
		}
		return nil, time.Time{}, false, nil
	}
	made, data, ok := strings.Cut(r[1], ":")
	ms, err := strconv.ParseInt(made, 10, 64)
	if !ok || err != nil {
		return nil, time.Time{}, false, nil
	}
	return []byte(data), time.UnixMilli(ms), true, nil
}

// missedAt remembers gens for key's Set, unless an earlier miss did.
func (s *cacheStore) missedAt(key, gens string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.missed[key]; ok {
		return
	}
	if len(s.missed) >= maxMissed {
		s.missed = make(map[string]string)
	}
	s.missed[key] = gens
}

// Set stores data under key for ttl: under the generations key's Get saw
// when it missed, and not at all when a Forget has replaced one since.
func (s *cacheStore) Set(ctx context.Context, key, group string, data []byte, made time.Time, ttl time.Duration) error {
	s.mu.Lock()
	gens := s.missed[key]
	delete(s.missed, key)
	s.mu.Unlock()
	v := strconv.AppendInt(make([]byte, 0, len(data)+24), made.UnixMilli(), 10)
	v = append(append(v, ':'), data...)
	return setScript.Run(ctx, s.rdb, s.keys(key, group), v, max(ttl.Milliseconds(), 1), token(), gens).Err()
}

// Forget gives group a new generation ("": every group's).
func (s *cacheStore) Forget(ctx context.Context, group string) error {
	return s.rdb.Set(ctx, s.prefix+"g:"+group, token(), 0).Err()
}
