package redislimit

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpwrap/mcpwrap/internal/ratelimit"
)

// takeScript takes one token from the bucket KEYS[1] (the GCRA of
// github.com/go-redis/redis_rate, cost 1, on Redis's clock) and remembers
// the answer under KEYS[2], the call's own key, for ARGV[4] milliseconds:
// run again for the same call (a retry after a read timed out, when the
// first run may have happened), it returns that answer instead of taking a
// second token. The answer is "1" (allowed) or "0:<seconds to wait>".
var takeScript = redis.NewScript(`
redis.replicate_commands()
local done = redis.call("GET", KEYS[2])
if done then
  return done
end
local burst = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local period = tonumber(ARGV[3])
local emission_interval = period / rate
local burst_offset = emission_interval * burst
local jan_1_2017 = 1483228800
local now = redis.call("TIME")
now = (now[1] - jan_1_2017) + (now[2] / 1000000)
local tat = redis.call("GET", KEYS[1])
if not tat then
  tat = now
else
  tat = tonumber(tat)
end
tat = math.max(tat, now)
local new_tat = tat + emission_interval
local diff = now - (new_tat - burst_offset)
local out = "1"
if diff < 0 then
  out = "0:" .. tostring(-diff)
else
  local reset_after = new_tat - now
  if reset_after > 0 then
    redis.call("SET", KEYS[1], new_tat, "EX", math.ceil(reset_after))
  end
end
redis.call("SET", KEYS[2], out, "PX", ARGV[4])
return out
`)

// noDeadlineWait bounds an attempt of a call whose ctx has no deadline
// and no WithWait applies; the Limiter always sets one.
const noDeadlineWait = time.Second

// attemptWait is how long the first attempt (first) or the re-send of a
// call may wait: WithWait's bound, or two thirds of what is left of the
// call's budget for the first, so that a re-send still fits; the budget
// (ctx's deadline) bounds both in any case.
func (s *store) attemptWait(ctx context.Context, first bool) time.Duration {
	if s.wait > 0 {
		return s.wait
	}
	dl, ok := ctx.Deadline()
	if !ok {
		return noDeadlineWait
	}
	left := time.Until(dl)
	if first {
		return left * 2 / 3
	}
	return left
}

// opTTL is how long Redis remembers a call's answer: longer than both
// attempts of the call can take.
func (s *store) opTTL(ctx context.Context) int64 {
	most := 2 * noDeadlineWait
	switch dl, ok := ctx.Deadline(); {
	case ok:
		most = time.Until(dl) // the budget bounds both attempts
	case s.wait > 0:
		most = 2 * s.wait
	}
	return (most + time.Second).Milliseconds()
}

// take runs takeScript for one call, and once more if the first run timed
// out or found no free connection and the call's budget is not spent: the
// call's key makes the second run return the first's answer if it
// happened.
func (s *store) take(ctx context.Context, bucket, op string, burst, rate int, period time.Duration) (allowed bool, retryAfter time.Duration, err error) {
	keys := []string{bucket, op}
	args := []any{burst, rate, period.Seconds(), s.opTTL(ctx)}
	var out string
	for attempt := 0; attempt < 2; attempt++ {
		actx, cancel := context.WithTimeout(ctx, s.attemptWait(ctx, attempt == 0))
		out, err = takeScript.Run(actx, s.rdb, keys, args...).Text()
		cancel()
		if err == nil || !retryable(err) || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		if retryable(err) {
			err = fmt.Errorf("%w: %w", ratelimit.ErrSlow, err)
		}
		return false, 0, err
	}
	if out == "1" {
		return true, 0, nil
	}
	secs, perr := strconv.ParseFloat(strings.TrimPrefix(out, "0:"), 64)
	if perr != nil {
		return false, 0, errors.New("redislimit: unexpected answer from the script: " + strconv.Quote(out))
	}
	return false, time.Duration(secs * float64(time.Second)), nil
}

// retryable reports whether a failed run is worth one more: it was slow
// (a timeout, or no pooled connection in time), not refused. A refused
// dial means Redis is down; asking again would only double the wait.
func retryable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, redis.ErrPoolTimeout) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// opID names one call for takeScript; unique, not secret.
func opID() string { return strconv.FormatUint(rand.Uint64(), 36) }
