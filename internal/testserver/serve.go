package testserver

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/loopback"
)

// The server and client on loopback, and what crossed the wire between
// them, are package loopback's, which links no testing.
type (
	// Conn is a running streamable-HTTP server and an initialized client
	// of it.
	Conn = loopback.Conn
	// Wire records every HTTP response the client received.
	Wire = loopback.Wire
	// Response is one recorded HTTP response.
	Response = loopback.Response
)

// Listen serves s over streamable HTTP on 127.0.0.1:0 and returns its URL
// and a stop function that closes the listener and every connection.
func Listen(s *server.MCPServer) (string, func(), error) { return loopback.Listen(s) }

// Serve serves s over streamable HTTP on 127.0.0.1:0 and connects a real,
// initialized mcp-go client to it whose HTTP responses Wire records.
func Serve(s *server.MCPServer, opts ...client.ClientOption) (*Conn, error) {
	return loopback.Serve(s, opts...)
}

// Messages splits a recorded body into its JSON-RPC messages.
func Messages(r Response) []json.RawMessage { return loopback.Messages(r) }
