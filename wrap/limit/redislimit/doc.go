// Package redislimit keeps wrap/limit's token buckets in Redis, so that a
// limit holds across every replica of a server. It uses go-redis and the
// GCRA limiter of github.com/go-redis/redis_rate (one atomic script per
// call, one round trip); it is a separate package so that importing wrap
// or wrap/limit links no Redis client.
//
//	rdb := redis.NewClient(redislimit.ClientOptions("127.0.0.1:6379"))
//	lim := limit.New(limit.PerMinute(10), limit.WithStore(redislimit.New(rdb)))
//	s := server.NewMCPServer("search", "1.0.0")
//	mcpgo.Attach(s, wrap.New(wrap.WithLimit(lim)))
//
// Each call waits for Redis at most WithWait (100ms by default). When Redis
// fails or is slow, the store reports an error and stops asking Redis for
// WithRetryInterval (1s by default), answering at once; then the next call
// tries again, so the store recovers by itself. What a failure means for
// the call is the Limiter's fail mode: open by default (the call runs
// unchecked), closed with limit.WithFailClosed. The Limiter logs each
// transition once; a call that asked Redis during an outage and fails
// after another call found Redis back neither switches the store off
// again nor is logged as a new outage.
//
// go-redis logs on its own, in plain text on stderr, about once per failed
// dial; NewLogger routes those lines into a *slog.Logger. Install it with
// redis.SetLogger, which is process-global (see Logger).
//
// Keys live under "rate:mcpwrap:limit:" (WithPrefix) and expire when their
// bucket is full again, so idle keys cost Redis nothing. A Store is safe for
// concurrent use.
package redislimit
