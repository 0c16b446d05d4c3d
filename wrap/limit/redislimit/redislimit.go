package redislimit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwrap/mcpwrap/internal/ratelimit"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
)

// Defaults of the options.
const (
	// clientTimeout is go-redis's own bound on a dial, a read, a write and
	// a wait for a pooled connection (ClientOptions): above the Limiter's
	// store budget (limit.WithStoreBudget), a context deadline that bounds
	// every call sooner.
	clientTimeout        = time.Second
	defaultRetryInterval = time.Second
	defaultPrefix        = "mcpwrap:limit:"
)

// errDown is the error of a call answered without asking Redis, because
// ratelimit.OutageAfter calls in a row failed less than the retry interval
// ago.
var errDown = errors.New("redislimit: redis failed recently; not asked again until the retry interval has passed")

// store keeps a Limiter's buckets in Redis.
type store struct {
	rdb    redis.UniversalClient
	wait   time.Duration
	retry  time.Duration
	prefix string
	epoch  time.Time
	// downUntil is when, in nanoseconds since epoch, Redis may be asked
	// again after an outage; 0 while it answers.
	downUntil atomic.Int64
	// failures counts the calls that failed in a row; answered is when, in
	// nanoseconds since epoch, Redis last answered. A call that started
	// before then and failed (slow, or a dial begun while Redis was down
	// timing out after it came back) is not counted: Redis answers.
	failures atomic.Int64
	answered atomic.Int64
	// failingSince is when, in nanoseconds since epoch, the current run of
	// failures began (see ratelimit.SlowOutage).
	failingSince atomic.Int64
}

// Option configures the Redis store. Options are applied once, in Store.
type Option func(*store)

// WithWait bounds each attempt's wait for Redis: the first, and the
// re-send of a call whose first attempt timed out. By default the first
// attempt may take two thirds of the Limiter's store budget
// (limit.WithStoreBudget, 250ms by default) and the re-send what is left.
// Either way the budget bounds the whole call: a longer wait than the
// budget means no re-send.
func WithWait(d time.Duration) Option {
	return func(s *store) {
		if d > 0 {
			s.wait = d
		}
	}
}

// WithRetryInterval sets how long after a failure calls are answered
// without asking Redis (1s by default).
func WithRetryInterval(d time.Duration) Option {
	return func(s *store) {
		if d > 0 {
			s.retry = d
		}
	}
}

// WithPrefix sets the prefix of the store's keys ("mcpwrap:limit:" by
// default), for servers that share a Redis but not their limits.
func WithPrefix(p string) Option {
	return func(s *store) { s.prefix = p }
}

// Store returns the option of limit.New that keeps the Limiter's buckets in
// Redis through rdb (a *redis.Client, *redis.ClusterClient or *redis.Ring),
// shared by every replica:
//
//	lim := limit.New(limit.Rate{Limit: 10, Per: time.Minute}, redislimit.Store(rdb))
//
// rdb should fail fast and honour context deadlines, as ClientOptions'
// settings do: the wait bound is a context deadline.
func Store(rdb redis.UniversalClient, opts ...Option) limit.Option {
	return ratelimit.WithStore(newStore(rdb, opts...)).(limit.Option)
}

func newStore(rdb redis.UniversalClient, opts ...Option) *store {
	s := &store{rdb: rdb, retry: defaultRetryInterval, prefix: defaultPrefix, epoch: time.Now()}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	return s
}

// ClientOptions returns go-redis options for a limiter's client at addr,
// sized for bursts: a pool of max(64, 10×GOMAXPROCS) connections, so that
// a burst of concurrent calls queues for a connection instead of failing;
// dial, read, write and pool timeouts of 1s; no retries (of a command or
// of a dial: go-redis otherwise dials a dead Redis 5 times, 100ms apart,
// so every call would wait out its budget instead of being refused at
// once); and context deadlines honoured, so that a dead or stalled Redis
// costs a call at most the Limiter's store budget (limit.WithStoreBudget).
// go-redis logs to stderr in plain text unless told otherwise: see
// SetLogger.
func ClientOptions(addr string) *redis.Options {
	return &redis.Options{
		Addr:                  addr,
		DialTimeout:           clientTimeout,
		DialerRetries:         1, // one attempt; 0 would mean go-redis's default of 5
		ReadTimeout:           clientTimeout,
		WriteTimeout:          clientTimeout,
		PoolTimeout:           clientTimeout,
		PoolSize:              max(64, 10*runtime.GOMAXPROCS(0)),
		MaxRetries:            -1,
		ContextTimeoutEnabled: true,
	}
}

// Take takes one token from b's bucket in Redis, by ctx's deadline (the
// Limiter's store budget; the Limiter has detached ctx from the caller's
// cancellation). Redis keeps the time (the GCRA script reads Redis's
// clock), so replicas with skewed clocks agree; now is not used.
func (s *store) Take(ctx context.Context, _ time.Time, b ratelimit.Bucket) (ratelimit.Decision, error) {
	started := int64(time.Since(s.epoch))
	if until := s.downUntil.Load(); until != 0 && started < until {
		return ratelimit.Decision{}, errDown
	}
	bucket, op := s.keys(b)
	allowed, retryAfter, err := s.take(ctx, bucket, op, b.Burst, b.Limit, b.Per)
	now := int64(time.Since(s.epoch))
	if err != nil {
		if started >= s.answered.Load() && s.outage(now, err) {
			s.markDown(started, now)
		}
		return ratelimit.Decision{}, err
	}
	s.markAnswered(now)
	if allowed {
		return ratelimit.Decision{Allowed: true}, nil
	}
	return ratelimit.Decision{RetryAfter: retryAfter}, nil
}

// markDown takes Redis as down for the retry time from now, the outage
// seen by a call started at started, unless another call got an answer
// meanwhile.
func (s *store) markDown(started, now int64) {
	until := now + int64(s.retry)
	s.downUntil.Store(until)
	if s.answered.Load() > started { // Redis answered another call meanwhile
		s.downUntil.CompareAndSwap(until, 0)
	}
}

// markAnswered records that Redis answered at now: the last answer moves
// forward, failures and a marked outage are forgotten.
func (s *store) markAnswered(now int64) {
	for last := s.answered.Load(); last < now && !s.answered.CompareAndSwap(last, now); last = s.answered.Load() {
	}
	if s.failures.Load() != 0 {
		s.failures.Store(0)
	}
	if s.downUntil.Load() != 0 {
		s.downUntil.Store(0)
	}
}

// outage counts a failed call of a run with none answered and reports
// whether the run is an outage: ratelimit.OutageAfter failures, failing
// for ratelimit.SlowOutage when they ran out of the budget.
func (s *store) outage(now int64, err error) bool {
	n := s.failures.Add(1)
	if n == 1 {
		s.failingSince.Store(now)
	}
	if n < ratelimit.OutageAfter {
		return false
	}
	return !errors.Is(err, ratelimit.ErrSlow) || time.Duration(now-s.failingSince.Load()) >= ratelimit.SlowOutage
}

// maxID is the longest key id kept as is; longer ones are hashed, so a
// key function of the user's (limit.WithKey) cannot make Redis keys of
// unbounded size.
const maxID = 128

// keys names b's bucket and a key for this call's answer. The bucket is
// "rate:" + prefix + "{" + the tool's length and name (a tool name may hold
// any character), the scope and the id + "}"; the call's key is prefix +
// "op:" + the same braces + ":" + a random id. The braces put both keys in
// one Redis Cluster hash slot, so the script may touch both; a name that
// holds a brace itself is hashed.
func (s *store) keys(b ratelimit.Bucket) (bucket, op string) {
	id := b.ID
	if len(id) > maxID {
		sum := sha256.Sum256([]byte(id))
		id = "sha256:" + hex.EncodeToString(sum[:])
	}
	name := strconv.Itoa(len(b.Tool)) + ":" + b.Tool + ":" + b.Scope + ":" + id
	if strings.ContainsAny(name, "{}") {
		sum := sha256.Sum256([]byte(name))
		name = "sha256:" + hex.EncodeToString(sum[:])
	}
	return "rate:" + s.prefix + "{" + name + "}", s.prefix + "op:{" + name + "}:" + opID()
}
