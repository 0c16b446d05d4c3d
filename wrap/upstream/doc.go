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
// A transient failure (errs.CodeOf says Unavailable or Timeout: refused,
// reset, EOF, HTTP 502/503/504, a timeout) marks the client broken: it is
// closed and the next Get dials a new one, once for all concurrent callers,
// within WithDialTimeout (10s) and a health check within WithHealthTimeout
// (2s). A failed dial or health check opens the circuit breaker, and so do
// WithThreshold (5) failures in a row; a broken connection counts once per
// client, a timeout every time. While it is open, Get fails fast with an
// errs.Unavailable error that names the upstream, carries a retry-after and
// matches errs.ErrNotSent. The open window starts at 1s and doubles on each
// failed probe up to 10s, with equal jitter (WithBackoff); the cap is also
// the longest a recovered upstream waits for calls. Dials, broken clients
// and breaker changes go once each to WithLogger and WithEvents, with the
// ctx of the call that caused them.
//
// Get on a healthy client takes no lock and allocates nothing; no mutex is
// held across I/O. A Holder is safe for concurrent use.
package upstream
