// Package upstream keeps the clients that tools use to reach other services
// (an *http.Client, a *sql.DB, an mcp-go client to another MCP server, a gRPC
// connection) working through network failures, without restarting the MCP
// server.
//
// A Holder is built from a dial function and, optionally, close and health
// functions. Tools get the current client with Get and report how the call
// went with Lease.Done, passing the call's ctx:
//
//	weather := upstream.New("weather-api", dialWeather,
//		upstream.WithClose(func(c *http.Client) error { c.CloseIdleConnections(); return nil }),
//		upstream.WithHealth(pingWeather),
//		upstream.WithLogger(logger),
//		upstream.WithEvents(obs.UpstreamEvent), // on the calling tool's span
//	)
//	defer weather.Close()
//
//	lease, err := weather.Get(ctx)
//	if err != nil {
//		return nil, err // "upstream weather-api is unavailable; retry after 2s"
//	}
//	resp, err := lease.Client.Do(req)
//	if err == nil {
//		err = errs.FromStatus("weather-api", resp.StatusCode, resp.Header)
//	}
//	if err = lease.Done(ctx, err); err != nil {
//		return nil, err // e.g. "upstream weather-api refused the connection"
//	}
//
// Holder.Do is Get and Done around one function.
//
// # Broken clients
//
// A transient failure (as errs.CodeOf classifies it: Unavailable or Timeout —
// refused, reset, EOF, timeouts, HTTP 502/503/504, an mcp-go session that the
// server no longer knows) marks the client broken: it is closed and the next
// Get dials a new one, once for all concurrent callers. A dial runs on its
// own deadline (WithDialTimeout, 10s); the health check of a new client on a
// shorter one (WithHealthTimeout, 2s). Done names the upstream in the error
// it returns, in the words of errs.FromUpstream.
//
// # The circuit breaker
//
// A failed dial or health check opens the breaker at once; so do Threshold
// (5) failures in a row while it is closed. A broken connection counts once
// per client, so 64 callers failing on one reset connection count as one
// failure; a timeout counts every time, so an upstream that accepts
// connections but never answers (a stopped process) opens the breaker after
// Threshold calls have timed out, not after every caller has. While the
// breaker is open, Get fails fast with an errs.Unavailable error that names
// the upstream, carries a RetryAfter and matches errs.ErrNotSent (nothing
// was sent, so nothing happened). Opening drops the current client; after
// the open window one caller is let through as the probe: it dials afresh
// (and passes the health check) and its call's outcome closes or reopens
// the breaker.
//
// The open window starts at 1s and doubles on each failed probe up to 10s,
// with equal jitter (WithBackoff sets both). That cap is also the longest
// time callers are held off after the upstream is back: a call goes through
// at most the cap after recovery, plus the probe's dial and health check.
//
// # Events
//
// Dials, failed dials, broken clients and breaker changes go to the logger
// (WithLogger) and to an EventFunc (WithEvents), each once, with the ctx of
// the call that caused them — the ctx given to Get, Do or Lease.Done — so
// observe's UpstreamEvent puts them on that call's span.
//
// Get on a healthy client is two atomic loads: no lock, no allocation. No
// mutex is held across I/O; dialling, health checks and closing happen
// outside them. A Holder is safe for concurrent use.
package upstream
