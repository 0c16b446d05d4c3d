// Package limit is admission control for wrap: token buckets per key per
// tool, an optional server-wide ceiling, and per-tool overrides, checked
// before anything else of the chain runs.
//
// 10 calls per minute per session for every tool:
//
//	lim := limit.New(limit.Rate{Limit: 10, Per: time.Minute})
//	s := server.NewMCPServer("search", "1.0.0")
//	mcpgo.Attach(s, wrap.New(wrap.WithLimit(lim)))
//
// A refused call is an isError result, never a protocol error:
//
//	tool "search" allows 10 calls per minute per session; retry after 6s
//
// with structuredContent {"error": {"code": "rate_limited", "retryable":
// true, "retryAfterSeconds": 6, …}}, a "rate_limited" event on the call's
// span, a count in mcpwrap.tool.rate_limited, and the call's log line
// (code rate_limited, the limit in its cause). The handler does not run.
//
// Whose calls share a bucket is DefaultKey's choice: the MCP session, else
// a hash of the Authorization credential, else the client address (record
// it with HTTPContextFunc), else one shared bucket; WithKey sets a function
// of your own. Many sessions or credentials each get their own bucket;
// WithServerLimit bounds them all together. WithTool gives one tool its own
// rate.
//
// Buckets live in the process by default (x/time/rate, no goroutine, idle
// buckets reaped, at most 100 000 of them). For a server run as several
// replicas, redislimit.Store keeps them in Redis so that the limit holds
// across replicas. A call waits for such a store at most 250ms
// (WithStoreBudget). A call the store fails to decide is refused with a
// retry (retryAfterSeconds 1); only 3 failures in a row are an outage,
// during which each replica applies the same rates on its own (the
// default) or every call is refused (WithFailClosed).
//
// A Limiter is safe for concurrent use.
package limit
