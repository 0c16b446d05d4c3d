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
// Run is Attach plus Transport: go-sdk's stream transports end the session
// (the process, for a stdio server) on a message nested deeper than they
// decode (1 000 levels from v1.8.0 on, 10 000 before) or, from v1.8.0 on,
// a line longer than MaxLineLength, before any middleware sees it;
// through Transport such a message is answered with a JSON-RPC -32600 for
// its id and the session goes on. Over streamable HTTP go-sdk answers it
// with HTTP 400 itself. The adapter builds and is tested on go-sdk v1.7.0
// (its go.mod's floor) and v1.8.0.
//
// Attach adds one receiving middleware (go-sdk's AddReceivingMiddleware).
// It sees each request before go-sdk looks the tool, prompt or resource up
// and before a typed tool (mcp.AddTool) decodes and validates its
// arguments, so everything that can fail is under the chain. Answers:
//
//   - tools/call: a Go error, a panic, a nil result or a timeout is an
//     isError result with one text content and structuredContent (errs'
//     rules: a public message scrubbed of the call's secrets, or masked
//     with a call id). The error a typed tool returned (which go-sdk
//     records with SetError and would send verbatim) is taken back and
//     answered like any error. A *jsonrpc.Error passes through unchanged.
//   - What is scrubbed: the text contents of an isError result the
//     handler built itself have the call's secret argument and header
//     values and secret-shaped text (PEM blocks, bearer tokens, JWTs, API
//     keys, URL passwords, "password=…") replaced; its structuredContent
//     and other contents pass unchanged. A successful or input_required
//     result, and a resource's or prompt's contents, pass unchanged: what a
//     handler returns as success is never scrubbed.
//   - Retries (wrap.WithRetry) and the advice of a timeout or an
//     unretried failure follow the tool's annotations (readOnlyHint,
//     idempotentHint), however the tool was registered: for a tool added
//     with plain Server.AddTool or mcp.AddTool, whose annotations go-sdk
//     keeps to itself, the middleware asks the server's tools/list (on the
//     call's session, through the middleware added before it) when a
//     failed call needs them; a successful call never does.
//   - resources/read, prompts/get: a failure is a *jsonrpc.Error with the
//     code and data every JSON-RPC error answer of mcpwrap has (see
//     docs/retrofit.md), its message scrubbed (go-sdk would send a
//     handler's error with code 0 and its text).
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
