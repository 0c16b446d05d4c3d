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
// Attach adds one receiving middleware (go-sdk's AddReceivingMiddleware).
// It sees each request before go-sdk looks the tool, prompt or resource up
// and before a typed tool (mcp.AddTool) decodes and validates its
// arguments, so everything that can fail is under the chain. Answers:
//
//   - tools/call: a Go error, a panic, a nil result or a timeout is an
//     isError result with one text content and structuredContent (errs'
//     rules); a result the handler built itself passes with its text
//     scrubbed of secrets. The error a typed tool returned (which go-sdk
//     records with SetError and would send verbatim) is taken back and
//     answered like any error. A *jsonrpc.Error passes through unchanged.
//   - resources/read, prompts/get: a failure is a *jsonrpc.Error with the
//     code and data of errs.ToJSONRPC (go-sdk would send a handler's error
//     with code 0 and its text).
//   - What go-sdk answers itself (unknown tool, prompt or resource) is sent
//     as go-sdk sends it, and logged once with its JSON-RPC code.
//
// # Typed tools and go-sdk's own schemas
//
// mcp.AddTool validates with a schema jsonschema-go infers and names one
// violation; an attached server answers that as an invalid_argument error.
// This package's AddTool advertises package validate's schema instead (the
// tags of mcp-go typed tools) and binds itself: every violation at once,
// did-you-mean, one text for one mistake. Both kinds can share a server.
// Attach allocates a few small objects and starts nothing (the Wrapper
// holds limits, bulkheads, instruments): a server built per HTTP request
// can attach it every time.
package gosdk
