// Package outboundtest is a fault-injecting MCP server for testing MCP
// clients, gateways and agents, in the spirit of net/http/httptest: a real
// mcp-go server (tools echo and add) behind an http.Handler that, per
// scenario, answers the way broken or hostile servers do: an HTTP status
// sequence, a JSON-RPC error, a tool error, malformed or non-compliant
// JSON, a closed connection, a truncated event stream, a hang, a late
// answer, an expiring token, input_required. examples/kitchen serves it as
// a command; tests start it on 127.0.0.1:0:
//
//	k := outboundtest.NewServer(outboundtest.Scenario{})
//	defer k.Close()
//	sc, _ := outboundtest.ParseScenario("http_status_sequence?statuses=503,200")
//	k.SetScenario("s1", sc) // the session of clients sending Kitchen-Session: s1
//	// point an MCP client at k.URL with the header Kitchen-Session: s1
//
// Each session (named by the Kitchen-Session header, else the MCP session
// id) has its own scenario and counters, so parallel tests do not disturb
// each other. Scenario names follow the Cakewalk MCP Test Kitchen's.
//
// Serve does the same for any *server.MCPServer (a bare one next to a
// wrapped one, in a demo or a test): it serves it on 127.0.0.1:0 and
// returns an initialized client whose HTTP responses Conn.Wire records, so
// a JSON-RPC error or a dropped connection on the wire can be counted.
//
// Handler, Server, Conn and Wire are safe for concurrent use.
package outboundtest
