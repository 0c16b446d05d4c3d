// Package errmap turns an error into what an MCP SDK adapter sends: ToResult
// is the one place an error becomes a tool result (Result, whose
// structuredContent is {"error": Info}), and ToJSONRPC the JSON-RPC error
// of a resources/read or prompts/get, worded by ToResult. InfoOf reads the
// Info back. wrap, its SDK adapters and the packages that build results
// (validate, wrap/limit, wrap/upstream) share it; users see only the
// results. A result is at most MaxResultBytes of JSON with at most
// MaxViolations violations listed, whatever the error holds. All of its
// functions are safe for concurrent use.
package errmap
