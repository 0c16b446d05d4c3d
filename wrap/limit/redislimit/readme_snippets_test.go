package redislimit_test

import (
	"github.com/redis/go-redis/v9"
	"time"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
	"github.com/mcpwrap/mcpwrap/wrap/limit/redislimit"
)

// The docs' snippets that need this module compile here, not in
// internal/readme, whose module does not require go-redis.

// docs/rate-limits.md: a limit shared by replicas.
func sharedRateLimit() *limit.Limiter {
	rdb := redis.NewClient(redislimit.ClientOptions("127.0.0.1:6379"))
	lim := limit.New(limit.Rate{Limit: 10, Per: time.Minute}, redislimit.Store(rdb))
	return lim
}

// docs/caching.md: answers shared by replicas.
func sharedCache() *wrap.Wrapper {
	rdb := redis.NewClient(redislimit.ClientOptions("127.0.0.1:6379"))
	w := wrap.New(wrap.WithCache(wrap.Cache{Store: redislimit.NewCacheStore(rdb, "")}))
	return w
}
