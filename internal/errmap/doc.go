// Package errmap turns an error into what an MCP SDK adapter sends: ToResult
// is the one place an error becomes a tool result (Result, whose
// structuredContent is {"error": errs.Info}), and ToJSONRPC the JSON-RPC
// error of a resources/read or prompts/get, worded by ToResult. InfoOf reads
// the Info back. wrap and its SDK adapters build answers with it, validate
// caps its violations at MaxViolations; users see only the results, through
// errs' vocabulary. A result is at most MaxResultBytes of JSON with at most
// MaxViolations violations listed, whatever the error holds. All of its
// functions are safe for concurrent use.
package errmap
