package outboundtest_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/wrap/outbound"
	"github.com/mcpwrap/mcpwrap/wrap/outbound/outboundtest"
)

// plainClient connects a real mcp-go client that names no kitchen session,
// on the 2025-11-25 handshake (initialize, then an MCP session id), and
// returns the methods and statuses of its setup POSTs.
func plainClient(t *testing.T, url string) (*client.Client, []string, []int) {
	t.Helper()
	hc := &http.Client{Transport: outbound.NewTransport(nil)}
	st, err := transport.NewStreamableHTTP(url, transport.WithHTTPBasicClient(hc))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(st)
	t.Cleanup(func() { _ = c.Close(); hc.CloseIdleConnections() })
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	tctx, posts := outbound.WithTrace(ctx)
	if err := c.Start(tctx); err != nil {
		t.Fatal(err)
	}
	_, err = c.Initialize(tctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "outboundtest", Version: "0"}}})
	var methods []string
	var statuses []int
	for _, p := range posts() {
		methods = append(methods, p.Method)
		statuses = append(statuses, p.Status)
	}
	if err != nil {
		t.Fatalf("initialize: %v (POSTs %v %v)", err, methods, statuses)
	}
	return c, methods, statuses
}

// TestStatusSequenceSurvivesInitializeForAPlainClient: with a default
// http_status_sequence and a client that names no session, the 503 hit the
// first POST, and then again the first POST of the MCP session initialize
// created (the session key switched to the Mcp-Session-Id), so setup failed
// every time. The client's session now carries on, and each new plain
// client sees the sequence from its start.
func TestStatusSequenceSurvivesInitializeForAPlainClient(t *testing.T) {
	k := outboundtest.NewServer("http_status_sequence?statuses=503,200")
	t.Cleanup(func() { _ = k.Close() }) // after the clients' cleanups
	for run := range 2 {
		c, methods, statuses := plainClient(t, k.URL)
		if len(statuses) < 2 || statuses[0] != 503 || slices.Contains(statuses[1:], 503) {
			t.Fatalf("client %d: setup POSTs %v %v, want one 503 on the first", run+1, methods, statuses)
		}
		var req mcp.CallToolRequest
		req.Params.Name = "echo"
		r := outbound.New(c).Call(t.Context(), req)
		if r.Outcome != outbound.OutcomeToolSuccess {
			t.Fatalf("client %d: %s %v (%s)", run+1, r.Outcome, r.HTTPStatuses, r.Verdict.Detail)
		}
	}
}
