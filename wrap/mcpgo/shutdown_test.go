package mcpgo_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// TestShutdownDoesNotWaitForAnUnusedConnection: a connection that never
// sent a request (a Go client dials one more than it uses under load) kept
// http.Server.Shutdown busy for five seconds, the whole of a FatalExit's
// default Timeout, so the hooks after HTTPServer.Shutdown never ran. The
// shutdown must finish within a deadline shorter than that, and a served
// client's answer must not be lost.
func TestShutdownDoesNotWaitForAnUnusedConnection(t *testing.T) {
	s := server.NewMCPServer("shutdown", "1.0.0")
	mcpgo.Attach(s, wrap.New())
	s.AddTool(mcp.NewTool("ping"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("pong"), nil
	})
	hs := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	tr, err := transport.NewStreamableHTTP("http://" + ln.Addr().String() + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr)
	defer c.Close()
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(context.Background(), mcp.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	var req mcp.CallToolRequest
	req.Params.Name = "ping"
	if res, err := c.CallTool(context.Background(), req); err != nil || res.IsError {
		t.Fatalf("call before the shutdown: %v %v", res, err)
	}

	idle, err := net.Dial("tcp", ln.Addr().String()) // connected, never writes
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	time.Sleep(50 * time.Millisecond) // let the server accept it

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := hs.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with an unused connection open: %v (want it closed, not waited for)", err)
	}
	if err := <-served; err == nil {
		t.Fatal("Serve returned nil, want http.ErrServerClosed")
	}
}
