// Package outboundtest is a fault-injecting MCP server for testing MCP
// clients, gateways and agents, in the spirit of net/http/httptest: a real
// mcp-go server (tools echo and add) behind an http.Handler that, per
// scenario, answers the way broken or hostile servers do. examples/kitchen
// serves it as a command; tests start it on 127.0.0.1:0:
//
//	k := outboundtest.NewServer("")
//	defer k.Close()
//	if err := k.SetScenario("s1", "http_status_sequence?statuses=503,200"); err != nil { … }
//	// point an MCP client at k.URL with the header Kitchen-Session: s1
//
// A scenario is text, name?key=value&…, everywhere: NewServer, NewHandler,
// SetScenario, the Kitchen-Scenario header and the control endpoint.
// "" is baseline. The names and their parameters:
//
//	baseline                  the real server, no fault
//	http_status_sequence      statuses=503,200 (the default) replayed across successive POSTs of the
//	                          session, any method; 2xx lets the POST through; retry_after=N with 429 and 503
//	jsonrpc_error             code=-32602 (the default), message=…
//	tool_error                a result with isError true
//	malformed_payload         a truncated JSON body; variant=html a 200 text/html page
//	non_compliant_envelope    variant=both (the default)|wrong_id|string_id|no_version|batch|
//	                          content_string|null_result|is_error_string
//	connection_close          the connection closed before the status line
//	sse_truncated             an event stream that ends before the response
//	uncooperative_hang        no answer until the client gives up or the server closes
//	late_response             the real answer after delay=2s (the default)
//	auth_token                tools/call answers 401 until call number until=2 (the default)
//	input_required            an input_required result (2026-07-28 multi round-trip)
//	sse                       the real answer as an event stream
//
// call=N makes a fault hit only the session's Nth tools/call (all but
// http_status_sequence and auth_token); sse=true sends any injected answer
// as an event stream after a progress notification, stray=true after a
// response to another request id. The prefixes errors., timeout. and auth.
// and the name token_lifecycle (for auth_token) are accepted, as the Cakewalk
// MCP Test Kitchen names them.
//
// Each session (named by the Kitchen-Session header, else the MCP session
// id) has its own scenario and counters, so parallel tests do not disturb
// each other.
//
// Handler and Server are safe for concurrent use.
package outboundtest
