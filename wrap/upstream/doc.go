// Package upstream keeps the clients that tools use to reach other services
// (an *http.Client, a *sql.DB, an mcp-go client to another MCP server, a gRPC
// connection) working through network failures, without restarting the MCP
// server.
//
// A Holder is built from a dial function (and optional close and health
// functions); tools get the client with Get and report with Lease.Done:
//
//	weather := upstream.New("weather-api", dialWeather, upstream.WithHealth(pingWeather),
//		upstream.WithLogger(logger), upstream.WithEvents(w.UpstreamEvent))
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
// Holder.Do is Get and Done around one function. A transient failure
// (errs.CodeOf says Unavailable or Timeout: refused, reset, EOF, HTTP
// 502/503/504, a timeout) marks the client broken: it is closed and the
// next Get dials a new one, once for all callers, within Policy.DialTimeout
// (10s), with a health check within Policy.HealthTimeout (2s). A failed dial
// or health check opens the circuit breaker, as do Policy.Threshold (5)
// failures in a row (a broken connection counts once per client, a timeout
// every time). While it is open, Get fails fast with an errs.Unavailable
// error naming the upstream, with a retry-after, matching errs.ErrNotSent.
// The open window starts at 1s (Policy.Backoff) and doubles per failed
// probe up to 10s (Policy.MaxBackoff), with equal jitter; WithPolicy sets
// these bounds (a Backoff set without a MaxBackoff is a fixed window). Dials, broken clients and breaker changes go once each to
// WithLogger and WithEvents, with the causing call's ctx; Stats is a
// snapshot for health pages.
//
// Get on a healthy client takes no lock and allocates nothing; no mutex is
// held across I/O. A Holder is safe for concurrent use.
package upstream
