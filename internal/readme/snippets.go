// Package readme is where the README's Go snippets compile: each function
// holds one snippet, line for line, with what it needs as parameters.
// TestEverySnippetCompiles fails when the README shows code that is not
// here (or in another compiled file).
package readme

import (
	"context"
	"errors"
	"log"
	"log/slog"
	"net/http"
	"os"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
	"github.com/mcpwrap/mcpwrap/wrap/outbound"
	"github.com/mcpwrap/mcpwrap/wrap/upstream"
)

func retrofit(logger *slog.Logger) *server.MCPServer {
	s := server.NewMCPServer("weather", "1.0.0",
		wrap.ServerOptions(wrap.WithLogger(logger), wrap.WithTimeout(30*time.Second))...,
	)
	return s
}

func mixing(logger *slog.Logger, copyFile, forecastTool mcp.Tool, handleCopy server.ToolHandlerFunc, forecast wrap.TypedHandler[struct{ City string }]) {
	w := wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(30*time.Second))
	s := server.NewMCPServer("weather", "1.0.0", server.WithToolHandlerMiddleware(w.Middleware()))
	s.AddTools(
		w.Tool(copyFile, handleCopy, wrap.WithTimeout(2*time.Minute)), // this tool's own timeout
		wrap.MustTyped(w, forecastTool, forecast),                     // typed, validated arguments
	)
}

func handlerErrors(city *string, name string, resp *http.Response, err error) (*mcp.CallToolResult, error) {
	switch {
	case city == nil:
		return nil, errs.Newf(errs.NotFound, "no city named %q", name)
	case resp.StatusCode != http.StatusOK:
		return nil, errs.FromStatus("weather-api", resp.StatusCode, resp.Header) // 429 keeps Retry-After
	default:
		return nil, err // a refused/reset connection or a deadline is classified; other errors are masked
	}
}

// UserError is a server's own error type written for the user.
type UserError struct{ Msg string }

func (e *UserError) Error() string { return e.Msg }

func publicErrors(logger *slog.Logger) *wrap.Wrapper {
	w := wrap.New(wrap.WithLogger(logger), wrap.WithPublicErrors(func(err error) bool {
		var u *UserError // the server's own "written for the user" type
		return errors.As(err, &u)
	}))
	return w
}

func typed(logger *slog.Logger, s *server.MCPServer) {
	type forecastArgs struct {
		City  string `json:"city" validate:"required" description:"City name, e.g. Paris"`
		Days  int    `json:"days" validate:"omitempty,min=1,max=14"`
		Units string `json:"units" validate:"omitempty,oneof=metric imperial"`
		Key   string `json:"api_key" validate:"omitempty,len=32" mcpwrap:"secret"` // never echoed back
	}

	w := wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(30*time.Second)) // the server's one Wrapper
	s.AddTools(wrap.MustTyped(w, mcp.NewTool("forecast", mcp.WithDescription("Weather forecast")),
		func(ctx context.Context, req mcp.CallToolRequest, args forecastArgs) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("sunny in " + args.City), nil
		}))
}

func callingSide(ctx context.Context, url string, logger *slog.Logger, req mcp.CallToolRequest) {
	hc := &http.Client{Transport: outbound.NewTransport(nil)} // sees every POST; SSE read event by event as mcp-go reads it
	tr, _ := transport.NewStreamableHTTP(url, transport.WithHTTPBasicClient(hc))
	mc := client.NewClient(tr) // Start, Initialize as usual
	c := outbound.New(mc, outbound.WithLogger(logger),
		outbound.WithRetry(outbound.RetryLimits{}), outbound.WithIdempotent(outbound.IdempotentTools("get_forecast")))
	rep := c.Call(ctx, req)          // rep.Outcome, rep.HTTPStatuses, rep.PostCount, rep.Advice, rep.Result, rep.Err
	res, err := c.CallTool(ctx, req) // drop-in: a transport/protocol outcome, or a result the wire contradicts, is always a *outbound.CallError
	_, _, _ = rep, res, err
}

func argumentModes(l *slog.Logger) *observe.Observer {
	obs := observe.New(observe.WithLogger(l),
		observe.WithArgumentNamesOnly(),        // every tool: {"path":"<string, 9 bytes>","content":"<string, 4096 bytes>"}
		observe.WithoutArguments("write_file")) // this tool: no arguments at all (secrets in them are still scrubbed from causes)
	return obs
}

func upstreams(ctx context.Context, logger *slog.Logger, obs *observe.Observer, configPath *string, conf any,
	dialHTTP func(context.Context) (*http.Client, error), ping func(context.Context, *http.Client) error,
	closeIdle func(*http.Client) error, flushTraces func(context.Context) error, req *http.Request) (*mcp.CallToolResult, error) {
	var c wrap.Checks // start-up: every problem at once, then exit 78
	key, base := c.Env("WEATHER_API_KEY"), c.EnvURL("WEATHER_API_URL")
	c.JSONFile(*configPath, &conf)
	c.MustPass(logger)

	api := upstream.New("weather-api", dialHTTP, // reconnecting client + circuit breaker
		upstream.WithHealth(ping), upstream.WithClose(closeIdle), upstream.WithLogger(logger),
		upstream.WithEvents(obs.UpstreamEvent)) // reconnects and breaker changes on the calling span
	defer api.Close()

	s := server.NewMCPServer("weather", "1.0.0", wrap.ServerOptions(
		wrap.WithLogger(logger), wrap.WithTimeout(3*time.Second),
		wrap.WithRetry(wrap.RetryPolicy{}),                                                    // read-only/idempotent tools only
		wrap.WithFatalExit(wrap.FatalExit{Hooks: []func(context.Context) error{flushTraces}}), // errs.Fatal → exit 70
	)...)

	// in a handler
	lease, err := api.Get(ctx) // fails fast while the breaker is open
	if err != nil {
		return nil, err
	}
	resp, err := lease.Client.Do(req)
	if err == nil {
		err = errs.FromStatus("weather-api", resp.StatusCode, resp.Header)
	}
	if err = lease.Done(ctx, err); err != nil { // a refused/reset/EOF/503/timeout marks the client broken
		return nil, err
	}
	_, _, _ = key, base, s
	return mcp.NewToolResultText("ok"), nil
}

func bulkheads() []wrap.Option {
	opts := []wrap.Option{
		wrap.WithBulkhead(wrap.Bulkhead{
			PerTool:    128,         // default DefaultBulkheadPerTool; negative = no per-tool limit
			Total:      512,         // all tools of the Wrapper together; 0 (default) = no total limit
			RetryAfter: time.Second, // suggested to the model when refused (default 1s)
		}),
		wrap.WithBulkhead(wrap.Bulkhead{PerTool: -1}), // off: nothing counted, nothing bounded
	}
	return opts
}

func stopping(s *server.MCPServer, obs *observe.Observer) wrap.Option {
	hs := wrap.NewHTTPServer(s, wrap.HTTPLimits{})
	stop := wrap.WithFatalExit(wrap.FatalExit{
		Drain:   10 * time.Second,       // wait for calls in flight to be answered (default 10s)
		Grace:   100 * time.Millisecond, // then for the last answers to be written (default)
		Timeout: 5 * time.Second,        // the hooks' own budget (default 5s; no longer shared with Grace)
		Hooks:   []func(context.Context) error{hs.Shutdown, obs.Flush},
		Signals: []os.Signal{syscall.SIGTERM, os.Interrupt}, // optional: stop the same way on a signal, exit 0
	})
	return stop
}

func serverLimits(s *server.MCPServer) {
	hs := wrap.NewHTTPServer(s, wrap.HTTPLimits{
		MaxBodyBytes:      4 << 20,          // default 4 MiB; negative = no cap
		SessionIdleTTL:    30 * time.Minute, // default; mcp-go's WithSessionIdleTTL; negative = never
		ReadHeaderTimeout: 10 * time.Second, // default, for Serve/ListenAndServe
		WriteTimeout:      time.Minute,      // per POST answer; default 0 = none
	})
	log.Fatal(hs.ListenAndServe(":8080")) // or mount hs (an http.Handler) at /mcp
}

func rateLimit() *server.MCPServer {
	lim := limit.New(limit.PerMinute(10))
	s := server.NewMCPServer("search", "1.0.0",
		wrap.ServerOptions(wrap.WithLimit(lim))...)
	return s
}

func allKinds(logger *slog.Logger) *server.MCPServer {
	s := server.NewMCPServer("notes", "1.0.0", wrap.ServerOptions(wrap.WithLogger(logger), wrap.WithTimeout(5*time.Second))...)
	return s
}

func perKind(logger *slog.Logger) *server.MCPServer {
	w := wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(5*time.Second))
	s := server.NewMCPServer("notes", "1.0.0",
		server.WithToolHandlerMiddleware(w.Middleware()),
		w.Resources(), // resources and resource templates
		w.Prompts(),
	)
	return s
}

func typedPrompt(s *server.MCPServer) {
	type summaryArgs struct {
		Topic string `json:"topic" validate:"required" description:"What to summarise"`
		Style string `json:"style" validate:"omitempty,oneof=short long" description:"short or long"`
	}

	s.AddPrompts(wrap.MustTypedPrompt(mcp.NewPrompt("summary"),
		func(ctx context.Context, req mcp.GetPromptRequest, a summaryArgs) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("summary of "+a.Topic, nil), nil
		}))
}
