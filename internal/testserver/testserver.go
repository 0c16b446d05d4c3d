// Package testserver starts real mcp-go servers on loopback for our tests:
// Serve connects a real client whose HTTP responses Wire records, so a
// JSON-RPC error or a dropped connection on the wire can be counted;
// Restartable is an upstream that can be stopped and started again on the
// same port; StartHTTP, StartRestartable and CallRaw add what needs a
// testing.TB.
package testserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

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
