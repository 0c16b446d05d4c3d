// Package errs is mcpwrap's shared vocabulary for failures: a closed set of
// codes, one immutable error type, the classification of standard Go,
// network and HTTP errors, and ToResult, the one function that turns an
// error into a tool result the model can act on.
//
// A tool handler returns errors that read well at the call site:
//
//	if resp.StatusCode != http.StatusOK {
//		return nil, errs.FromStatus("weather-api", resp.StatusCode, resp.Header)
//	}
//	if city == nil {
//		return nil, errs.Newf(errs.NotFound, "no city named %q", name)
//	}
//	return nil, errs.Wrap(errs.Unavailable, err, "weather-api did not answer")
//
// Plain errors are fine too: a refused connection, a reset, a deadline or an
// mcp-go transport error is classified by CodeOf. What the model sees is a
// safe sentence per code; what the operator sees is the cause.
//
// errs imports nothing else of mcpwrap. All of its functions are safe for
// concurrent use.
package errs
