// Package testserver starts real mcp-go servers on loopback for our tests.
// What links no testing is package loopback's (Serve, whose client's HTTP
// responses Wire records; Restartable, an upstream that can be stopped and
// started again on the same port), named here too; StartHTTP,
// StartRestartable, StartStdio and the benchmarks' helpers add what needs a
// testing.TB.
package testserver

import (
	"testing"

	"github.com/mark3labs/mcp-go/client"
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
