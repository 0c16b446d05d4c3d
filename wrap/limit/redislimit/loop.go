package redislimit

import (
	"context"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// defaultLoopPrefix is the prefix of the loop guard's keys.
const defaultLoopPrefix = "mcpwrap:loop:"

// loopStore is a wrap.LoopStore in Redis.
type loopStore struct {
	rdb    redis.UniversalClient
	prefix string
}

// NewLoopStore returns a wrap.LoopStore in Redis, using rdb (ClientOptions
// suits it) with keys under prefix ("mcpwrap:loop:" when ""): one small
// hash per failing call (code, count, retry time, the message the model was
// shown, at most about 600 bytes), named by the guard's fixed-length hash,
// expiring with the guard's window after the first failure. Give it to
// wrap.LoopGuard.Store so that every replica sees the same failures. It is
// safe for concurrent use.
func NewLoopStore(rdb redis.UniversalClient, prefix string) wrap.LoopStore {
	if prefix == "" {
		prefix = defaultLoopPrefix
	}
	return &loopStore{rdb: rdb, prefix: prefix}
}

// failScript adds a failure of code ARGV[1] to the hash KEYS[1]: one more
// of the same code, or a new record expiring after ARGV[4] milliseconds.
var failScript = redis.NewScript(`
if redis.call("HGET", KEYS[1], "code") == ARGV[1] then
  redis.call("HINCRBY", KEYS[1], "count", 1)
  redis.call("HSET", KEYS[1], "retry", ARGV[2], "msg", ARGV[3])
else
  redis.call("DEL", KEYS[1])
  redis.call("HSET", KEYS[1], "code", ARGV[1], "count", 1, "retry", ARGV[2], "msg", ARGV[3])
  redis.call("PEXPIRE", KEYS[1], ARGV[4])
end
return 1
`)

// Load returns key's record.
func (s *loopStore) Load(ctx context.Context, key string) (wrap.LoopRecord, error) {
	m, err := s.rdb.HGetAll(ctx, s.prefix+key).Result()
	if err != nil || len(m) == 0 {
		return wrap.LoopRecord{}, err
	}
	code, _ := strconv.Atoi(m["code"])
	count, _ := strconv.Atoi(m["count"])
	r := wrap.LoopRecord{Code: errs.Code(code), Count: count, Message: m["msg"]}
	if ms, _ := strconv.ParseInt(m["retry"], 10, 64); ms > 0 {
		r.RetryAt = time.UnixMilli(ms)
	}
	return r, nil
}

// Fail adds one failure to key's record.
func (s *loopStore) Fail(ctx context.Context, key string, r wrap.LoopRecord, window time.Duration) error {
	var retry int64
	if !r.RetryAt.IsZero() {
		retry = r.RetryAt.UnixMilli()
	}
	return failScript.Run(ctx, s.rdb, []string{s.prefix + key},
		strconv.Itoa(int(r.Code)), retry, r.Message, max(window.Milliseconds(), 1)).Err()
}

// Forget deletes key's record.
func (s *loopStore) Forget(ctx context.Context, key string) error {
	return s.rdb.Del(ctx, s.prefix+key).Err()
}
