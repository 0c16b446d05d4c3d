// Package gosdk attaches mcpwrap's chain (package wrap) to a server built
// with the official Go SDK, github.com/modelcontextprotocol/go-sdk: every
// tools/call, resources/read and prompts/get runs through the chain, so a
// panic in any handler is recovered (go-sdk has no recover: a panic kills
// the process), a Go error becomes a classified, masked answer with a call
// id, and every request gets one log line and one span. It links no mcp-go.
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
// mcp.AddTool infers the input schema with github.com/google/jsonschema-go
// and validates with it; its failure ("validating \"arguments\": …") names
// one violation. On an attached server that failure is answered as an
// invalid_argument error holding that violation. For every violation at
// once, did-you-mean and validator tags, register the tool with this
// package's AddTool instead: it advertises the schema package validate
// derives from the struct (the same tags as mcp-go typed tools) and binds
// the arguments itself, so go-sdk never validates them and the model gets
// exactly one text for one mistake. Both kinds of tool can live on one
// server.
//
// The Wrapper holds everything that must outlive one server (limits,
// bulkheads, instruments); Attach allocates a few small objects and starts
// nothing, so a server built per HTTP request can attach it every time.
package gosdk
