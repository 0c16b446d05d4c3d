// Package errs is mcpwrap's shared vocabulary for failures: a closed set of
// codes, one immutable error type, the classification of standard Go,
// network and HTTP errors, and ToResult, the one function that turns an
// error into a tool result the model can act on (ToJSONRPC does the same
// for the JSON-RPC error of a resource or prompt).
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
// Standard errors need no wrapping: CodeOf classifies a refused connection,
// a reset, a deadline, fs.ErrNotExist or an SDK client's transport error
// (ErrTransport). The codes other than Internal and Fatal show their
// message to the model; what the operator sees is the cause. A result
// built by ToResult is at most MaxResultBytes (16 KiB) of JSON with at most
// MaxViolations (20) violations listed.
//
// errs imports nothing else of mcpwrap. All of its functions are safe for
// concurrent use.
package errs
