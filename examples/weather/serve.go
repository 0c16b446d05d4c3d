package main

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap/outbound"
)

// serve serves s over streamable HTTP on 127.0.0.1 and returns an
// initialized mcp-go client of it, whose HTTP client goes through
// outbound's RoundTripper, and what stops both.
func serve(s *server.MCPServer) (*client.Client, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	// Close, not Shutdown: the client's event stream stays open until then.
	hs := &http.Server{Handler: server.NewStreamableHTTPServer(s), ReadHeaderTimeout: 5 * time.Second,
		ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = hs.Serve(ln) }()
	hc := &http.Client{Transport: outbound.NewTransport(nil)}
	tr, err := transport.NewStreamableHTTP("http://"+ln.Addr().String()+"/mcp", transport.WithHTTPBasicClient(hc))
	if err != nil {
		_ = hs.Close()
		return nil, nil, err
	}
	cl := client.NewClient(tr)
	stop := func() { _ = cl.Close(); _ = hs.Close(); hc.CloseIdleConnections() }
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.Start(ctx); err != nil {
		stop()
		return nil, nil, err
	}
	if _, err := cl.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "weather-demo", Version: "0"}}}); err != nil {
		stop()
		return nil, nil, err
	}
	return cl, stop, nil
}
