// Package gosdk attaches mcpwrap's chain (package wrap) to a server built
// with the official Go SDK, github.com/modelcontextprotocol/go-sdk: every
// tools/call, resources/read and prompts/get runs through the chain, so a
// panic in any handler is recovered (go-sdk has no recover: a panic kills
// the process), a Go error becomes a classified answer, its text scrubbed
// of secrets, addresses and stacks (or masked, with a call id), and every
// request gets one log line and one span. It links no mcp-go.
//
// One line, after the server's other receiving middleware:
//
//	s := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "1.0.0"}, nil)
//	gosdk.Attach(s, wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(25*time.Second)))
//
// A stdio server writes its one line where it runs the server instead, on
// its own transport (&mcp.StdioTransport{}, or an *mcp.IOTransport over
// its own reader and writer):
//
//	err := gosdk.Run(ctx, s, w, &mcp.StdioTransport{}) // instead of s.Run(ctx, &mcp.StdioTransport{})
//
// Run is Attach plus Transport, which answers a message go-sdk's stream
// transports would end the session on (nested too deep, a line too long)
// with a JSON-RPC -32600 and goes on. AddTool is the typed form, with the
// binding and messages of mcp-go typed tools. The adapter builds and is
// tested on go-sdk v1.7.0 (its go.mod's floor) and v1.8.0.
// docs/retrofit.md tells the rest: what the middleware sees, the answers,
// annotations, and what is scrubbed. Attach allocates a few small objects
// and starts nothing: a server built per HTTP request can attach it every
// time. Everything here is safe for concurrent use.
package gosdk
