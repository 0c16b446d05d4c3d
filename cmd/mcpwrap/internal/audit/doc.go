// Package audit is `mcpwrap audit`: it scores any MCP server, whatever its
// language or SDK, against the calls that make models hallucinate, and says
// per tool and check what the client got back.
//
//	mcpwrap audit -- ./my-server --flag   # stdio: the command is started, and ended afterwards
//	mcpwrap audit http://127.0.0.1:8080/mcp
//
// Main is the one way in: cmd/mcpwrap hands it the arguments after
// "audit". It initializes a session itself (every JSON-RPC message is built
// and read here, so arguments can be null, an array, invalid UTF-8, and
// every byte of a stdio server's stdout is seen), lists the tools, and for
// each tool in scope sends the probes its input schema suggests (probes.go);
// each answer is classified with wrap/outbound's Classifier and checked
// (checks.go). Every listed resource is read and every listed prompt
// fetched once, with the same checks. Then come the server probes: an unknown tool, resource and
// prompt, a burst of concurrent calls, a call cancelled mid-flight, and a
// fresh session opened with mcp-go's own client.
//
// Only tools annotated readOnlyHint are called unless --tools or
// --all-tools says otherwise; the HTTP client dials only the URL's host
// (a loopback name only on loopback addresses), uses no proxy and follows
// no redirect; every wait has a timeout and every read a limit; the run has
// a budget of tools, calls and seconds. A run that left a listed tool,
// resource or prompt unprobed is INCOMPLETE (ExitIncomplete), never a
// pass, unless --allow-partial. docs/audit.md is the user's guide.
package audit
