package outboundtest_test

import (
	"context"
	"fmt"
	"net/http"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/wrap/outbound"
	"github.com/mcpwrap/mcpwrap/wrap/outbound/outboundtest"
)

// A client under test meets a server that answers tools/call with a
// JSON-RPC error inside an HTTP 200.
func Example() {
	k := outboundtest.NewServer("")
	defer k.Close()
	if err := k.SetScenario("example", "jsonrpc_error?code=-32602"); err != nil {
		fmt.Println(err)
		return
	}

	ctx := context.Background()
	hc := &http.Client{Transport: outbound.NewTransport(nil)}
	defer hc.CloseIdleConnections()
	st, _ := transport.NewStreamableHTTP(k.URL,
		transport.WithHTTPBasicClient(hc),
		transport.WithHTTPHeaders(map[string]string{outboundtest.HeaderSession: "example"}))
	mc := client.NewClient(st)
	defer mc.Close()
	if err := mc.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := mc.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		fmt.Println(err)
		return
	}
	var req mcp.CallToolRequest
	req.Params.Name = "echo"
	r := outbound.New(mc).Call(ctx, req)
	fmt.Println(r.Outcome, r.Verdict.ErrorCode, r.HTTPStatuses)
	// Output: JSONRPC_ERROR -32602 [200]
}
