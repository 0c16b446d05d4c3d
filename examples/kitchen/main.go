// Command kitchen is a fault-injection MCP server (streamable HTTP) for
// testing MCP clients, gateways and agents locally and in CI. It serves
// wrap/outbound/outboundtest's Handler, which Go tests can start in-process.
//
//	go run ./examples/kitchen -scenario 'http_status_sequence?statuses=503,200'
//	go run ./examples/kitchen -stdio        # the same tools over stdio, no faults
//
// It listens on 127.0.0.1 by default and refuses other addresses unless
// -allow-remote is given. Scenarios: baseline, http_status_sequence,
// jsonrpc_error, tool_error, malformed_payload, non_compliant_envelope,
// connection_close, sse_truncated, uncooperative_hang, late_response,
// auth_token, input_required, sse. A client that sends no header gets the
// -scenario from its first POST on, across initialize, and the next such
// client starts it afresh. A session picks its own with the Kitchen-Scenario
// header (and names itself with Kitchen-Session), or via
// POST /kitchen/scenario?scenario=…&session=….
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap/outbound/outboundtest"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kitchen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8931", "listen address (loopback unless -allow-remote)")
	scenario := fs.String("scenario", "baseline", "default scenario, name?key=value&… (go doc outboundtest lists them)")
	stdio := fs.Bool("stdio", false, "serve the tools over stdio instead, without faults")
	remote := fs.Bool("allow-remote", false, "allow a non-loopback listen address")
	if err := fs.Parse(args); err != nil {
		return 64
	}
	if *stdio {
		if err := server.ServeStdio(outboundtest.NewMCPServer()); err != nil {
			fmt.Fprintln(stderr, "kitchen:", err)
			return 1
		}
		return 0
	}
	k, err := outboundtest.NewHandler(*scenario)
	if err != nil {
		fmt.Fprintln(stderr, "kitchen:", err)
		return 64
	}
	defer k.Close() // releases the requests uncooperative_hang holds
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		fmt.Fprintln(stderr, "kitchen:", err)
		return 64
	}
	if ip := net.ParseIP(host); !*remote && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(stderr, "kitchen: %s is not a loopback address; pass -allow-remote to serve faults to a network\n", host)
		return 64
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "kitchen:", err)
		return 1
	}
	hs := &http.Server{Handler: k, ReadHeaderTimeout: 5 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = hs.Serve(ln) }()
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "kitchen: serving %s/mcp (scenario %s; control: POST %s%s?scenario=…&session=…)\n",
		base, *scenario, base, outboundtest.ControlPath)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	k.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	return 0
}
