// Package upstream keeps the clients that tools use to reach other services
// (an *http.Client, a *sql.DB, an mcp-go client to another MCP server, a gRPC
// connection) working through network failures, without restarting the MCP
// server.
//
// A Holder is built from a dial function and, optionally, close and health
// functions. Tools get the current client with Get and report how the call
// went with Lease.Done:
//
//	weather := upstream.New("weather-api", dialWeather,
//		upstream.WithClose(func(c *http.Client) error { c.CloseIdleConnections(); return nil }),
//		upstream.WithHealth(pingWeather),
//		upstream.WithLogger(logger),
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
//	if err = lease.Done(err); err != nil {
//		return nil, err
//	}
//
// A transient failure (as errs.CodeOf classifies it: Unavailable or Timeout —
// refused, reset, EOF, timeouts, HTTP 502/503/504, an mcp-go session that the
// server no longer knows) marks the client broken: it is closed and the next
// Get dials a new one, once for all concurrent callers. A failed dial opens
// the circuit breaker at once; so do Threshold consecutive broken clients.
// While the breaker is open, Get fails fast with an errs.Unavailable error
// that names the upstream and carries a RetryAfter; after the open window
// (exponential, with jitter, capped) one caller is let through as the probe,
// and its outcome closes or reopens the breaker. Each client generation
// counts once, so 64 callers failing on the same broken client count as one
// failure, not 64.
//
// Get on a healthy client is two atomic loads: no lock, no allocation. The
// mutex that guards the breaker is never held across I/O; dialling, health
// checks and closing happen outside it. A Holder is safe for concurrent use.
package upstream
