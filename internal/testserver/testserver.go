// Package testserver starts real mcp-go servers on loopback for tests, on
// top of the public outboundtest.Serve, and upstreams that can be stopped
// and started again on the same port (Restartable); it adds what needs a
// testing.TB.
package testserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap/outbound/outboundtest"
)

// Conn is outboundtest.Conn with helpers for tests.
type Conn struct{ *outboundtest.Conn }

// Wire and Response are outboundtest's wire recorder.
type (
	Wire     = outboundtest.Wire
	Response = outboundtest.Response
)

// Messages splits a recorded body into its JSON-RPC messages.
func Messages(r Response) []json.RawMessage { return outboundtest.Messages(r) }

// Listen is outboundtest.Listen.
func Listen(s *server.MCPServer) (string, func(), error) { return outboundtest.Listen(s) }

// Serve is outboundtest.Serve.
func Serve(s *server.MCPServer, opts ...client.ClientOption) (*Conn, error) {
	c, err := outboundtest.Serve(s, opts...)
	if err != nil {
		return nil, err
	}
	return &Conn{c}, nil
}

// StartHTTP serves s over streamable HTTP on 127.0.0.1:0 and connects a real
// mcp-go client to it. Everything is stopped when the test ends.
func StartHTTP(t testing.TB, s *server.MCPServer, opts ...client.ClientOption) *Conn {
	t.Helper()
	c, err := Serve(s, opts...)
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

// CallRaw calls a tool with arguments given as exact JSON text (none for
// ""), so a test controls what goes on the wire, and fails the test on a
// protocol or transport error.
func (c *Conn) CallRaw(t testing.TB, tool, args string) *mcp.CallToolResult {
	t.Helper()
	var req mcp.CallToolRequest
	req.Params.Name = tool
	if args != "" {
		req.Params.RawArguments = json.RawMessage(args)
	}
	res, err := c.Client.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("call %s %s: %v", tool, args, err)
	}
	return res
}
