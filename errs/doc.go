// Package errs is mcpwrap's shared vocabulary for failures: a closed set of
// codes, one immutable error type and the classification of standard Go,
// network and HTTP errors. A handler behind wrap returns these errors and
// wrap turns each into the one error result the model reads: isError true,
// a sentence the model can act on and a structuredContent {"error": {"code",
// "message", "retryable", "retryAfterSeconds", "callId", "violations", …}};
// a resource or prompt gets the JSON-RPC error worded the same way.
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
// a reset, a deadline, fs.ErrNotExist or an SDK client's transport error.
// Test a failure with CodeOf(err) == errs.NotFound, and a call that never
// reached the upstream with errors.Is(err, errs.ErrNotSent). The codes
// other than Internal and Fatal show their message to the model; what the
// operator sees is the cause (Unwrap), in the log and the span. A result is
// at most 16 KiB of JSON with at most 20 violations listed, whatever the
// error holds.
//
// errs builds on none of mcpwrap's other public packages (validate, observe
// and wrap build on it). All of its functions are safe for concurrent use.
package errs
