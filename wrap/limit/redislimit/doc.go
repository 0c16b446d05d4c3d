// Package redislimit keeps wrap/limit's token buckets in Redis, so that a
// limit holds across every replica of a server. It uses go-redis and a
// GCRA script (that of github.com/go-redis/redis_rate, on Redis's clock:
// one atomic script per call, one round trip); it is a separate package so
// that importing wrap or wrap/limit links no Redis client.
//
//	rdb := redis.NewClient(redislimit.ClientOptions("127.0.0.1:6379"))
//	lim := limit.New(limit.Rate{Limit: 10, Per: time.Minute}, redislimit.Store(rdb))
//	s := server.NewMCPServer("search", "1.0.0")
//	mcpgo.Attach(s, wrap.New(wrap.WithLimit(lim)))
//
// ClientOptions sizes the client for bursts. A call waits for Redis at
// most the Limiter's store budget (limit.WithStoreBudget, 250ms by
// default), re-send included: an attempt that timed out is made once more
// within it (the first may take two thirds of it, or WithWait), and the
// script remembers each call's answer, so the retry of a call whose answer
// was lost cannot take a second token. A failed call is not an outage: the
// Limiter refuses that call with a retry. Only 3 failures in a row, with
// no call answered meanwhile (and, for calls that ran out of the budget,
// failing for 3s: a burst is not an outage), make the store stop
// asking Redis for WithRetryInterval (1s by default), answering at once; then the next call tries again, so the store recovers
// by itself. What an outage means for calls is the Limiter's fail mode:
// open by default (each replica applies the rates on its own), closed with
// limit.WithFailClosed. The Limiter logs each transition once; a call that
// asked Redis during an outage and fails after another call found Redis
// back neither switches the store off again nor is logged as a new outage.
//
// NewLoopStore keeps wrap's loop guard in the same Redis
// (wrap.LoopGuard.Store), so that a model retrying through a load balancer
// meets one guard across the replicas.
//
// go-redis logs on its own, in plain text on stderr, about once per failed
// dial; SetLogger routes those lines into a *slog.Logger (process-global:
// every go-redis client of the process).
//
// Bucket keys live under "rate:mcpwrap:limit:" (WithPrefix) and expire when
// their bucket is full again; the keys of calls' answers live under
// "mcpwrap:limit:op:" and expire a second after the call's budget. The
// store is safe for concurrent use.
package redislimit
