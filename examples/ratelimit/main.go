// Command ratelimit is an MCP server whose "search" tool is rate limited by
// mcpwrap: per session, else per credential, else per client address.
//
//	go run ./examples/ratelimit                                  # local limit, one process
//	go run ./examples/ratelimit -redis 127.0.0.1:6379 -listen 127.0.0.1:8081   # shared by every replica
//
// Without -redis the limit is the one-line form:
//
//	lim := limit.New(limit.Rate{Limit: 10, Per: time.Minute})
//	s := server.NewMCPServer("search", "1.0.0")
//	mcpgo.Attach(s, wrap.New(wrap.WithLimit(lim)))
//
// With -redis the buckets live in Redis, so any number of replicas behind a
// load balancer share one limit per key:
//
//	rdb := redis.NewClient(redislimit.ClientOptions(addr))
//	lim := limit.New(limit.Rate{Limit: 10, Per: time.Minute}, redislimit.Store(rdb))
//
// The server prints "listening on <url>" once it serves, logs one JSON line
// per call on stderr and stops on SIGINT or SIGTERM. The multi-replica test
// of wrap/limit/redislimit runs three of these against one Redis.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/redis/go-redis/v9"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
	"github.com/mcpwrap/mcpwrap/wrap/limit/redislimit"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "ratelimit:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out, logOut io.Writer) error {
	fs := flag.NewFlagSet("ratelimit", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8080", "address to serve streamable HTTP on (port 0: any free port)")
	redisAddr := fs.String("redis", "", "Redis address shared by the replicas (empty: limit in this process only)")
	calls := fs.Int("limit", 10, "calls allowed per window per key")
	per := fs.Duration("per", time.Minute, "the window")
	redisWait := fs.Duration("redis-wait", 0, "longest wait for Redis per attempt (0: two thirds of the store budget for the first, the rest for the re-send)")
	budget := fs.Duration("store-budget", 250*time.Millisecond, "longest wait for Redis per call, re-send included")
	failClosed := fs.Bool("fail-closed", false, "refuse calls while Redis is down (default: each replica applies the limit on its own)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(logOut, nil))

	opts := []limit.Option{limit.WithLogger(logger), limit.WithStoreBudget(*budget)}
	if *redisAddr != "" {
		// go-redis's own lines (a failed dial, about once a second while
		// Redis is down) join the JSON log instead of printing text on
		// stderr. SetLogger is process-global: set it once, here in main.
		redislimit.SetLogger(logger)
		rdb := redis.NewClient(redislimit.ClientOptions(*redisAddr))
		defer rdb.Close()
		opts = append(opts, redislimit.Store(rdb, redislimit.WithWait(*redisWait)))
	}
	if *failClosed {
		opts = append(opts, limit.WithFailClosed())
	}
	lim := limit.New(limit.Rate{Limit: *calls, Per: *per}, opts...)

	s := server.NewMCPServer("search", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLimit(lim), wrap.WithLogger(logger)))
	s.AddTool(mcp.NewTool("search",
		mcp.WithDescription("Searches the catalogue."),
		mcp.WithString("q", mcp.Required()),
		mcp.WithReadOnlyHintAnnotation(true),
	), search)

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	hs := &http.Server{
		Handler:           server.NewStreamableHTTPServer(s, server.WithHTTPContextFunc(limit.HTTPContextFunc)),
		ReadHeaderTimeout: 5 * time.Second,
	}
	fmt.Fprintf(out, "listening on http://%s/mcp\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func search(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	q, err := req.RequireString("q")
	if err != nil {
		return nil, err
	}
	return mcp.NewToolResultText("3 results for " + q), nil
}
