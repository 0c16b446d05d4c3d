// The Go snippets of README.md and docs/*.md compile here, in test files
// only: each function holds one or more snippets, line for line, with what
// they need as parameters. No function is called, by design.

package readme

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/mcpwrap/mcpwrap/validate"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/limit"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
	"github.com/mcpwrap/mcpwrap/wrap/outbound"
	"github.com/mcpwrap/mcpwrap/wrap/process"
	"github.com/mcpwrap/mcpwrap/wrap/upstream"
)

// README.md, docs/retrofit.md: the retrofit.
func retrofit(logger *slog.Logger, opts ...server.ServerOption) *server.MCPServer {
	s := server.NewMCPServer("weather", "1.0.0", opts...)
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(30*time.Second)))
	return s
}

// docs/retrofit.md: tools with a chain of their own, from the same Wrapper.
func perTool(logger *slog.Logger, copyFile, forecastTool mcp.Tool, handleCopy server.ToolHandlerFunc, forecast mcpgo.TypedHandler[struct{ City string }, *mcp.CallToolResult]) {
	w := wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(30*time.Second))
	s := server.NewMCPServer("weather", "1.0.0")
	mcpgo.Attach(s, w)
	s.AddTools(
		mcpgo.Tool(w, copyFile, handleCopy, wrap.WithTimeout(2*time.Minute)), // this tool's own timeout
		mcpgo.Typed(w, forecastTool, forecast),                               // typed, validated arguments
	)
}

// README.md, docs/retrofit.md: errors a handler returns.
func handlerErrors(city *string, name string, resp *http.Response, err error) (*mcp.CallToolResult, error) {
	switch {
	case city == nil:
		return nil, errs.Newf(errs.NotFound, "no city named %q", name)
	case resp.StatusCode != http.StatusOK:
		return nil, errs.FromStatus("weather-api", resp.StatusCode, resp.Header) // 429 keeps Retry-After
	default:
		return nil, fmt.Errorf("read forecast for %s: %w", name, err) // a refused connection or a deadline keeps these words
	}
}

// UserError is a server's own error type written for the user.
type UserError struct{ Msg string }

func (e *UserError) Error() string { return e.Msg }

// docs/retrofit.md: the masking rule, replaced or made strict.
func maskingRules(logger *slog.Logger) (*wrap.Wrapper, *wrap.Wrapper) {
	public := wrap.New(wrap.WithLogger(logger), wrap.WithPublicErrors(func(err error) bool {
		var u *UserError // the server's own "written for the user" type
		return errors.As(err, &u)
	}))
	strict := wrap.New(wrap.WithLogger(logger), wrap.WithMaskedErrors(), wrap.WithSecrets("dsn", "session_key"))
	return public, strict
}

// docs/retrofit.md: loggers.
func loggers(h slog.Handler) (*slog.Logger, *slog.Logger, *slog.Logger) {
	logger := observe.NewLogger() // JSON on stderr, or coloured text on a terminal
	stdio := observe.NewLogger(observe.WithLogBuffer())
	other := slog.New(h) // any slog.Handler
	return logger, stdio, other
}

// README.md, docs/typed-arguments.md: a typed tool.
func typed(logger *slog.Logger) *server.MCPServer {
	type forecastArgs struct {
		City  string `json:"city" validate:"required" description:"City name, e.g. Paris"`
		Days  int    `json:"days" validate:"omitempty,min=1,max=14"`
		Units string `json:"units" validate:"omitempty,oneof=metric imperial"`
		Key   string `json:"api_key" validate:"omitempty,len=32" mcpwrap:"secret"` // never echoed back
	}

	w := wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(30*time.Second))
	s := server.NewMCPServer("weather", "1.0.0")
	mcpgo.Attach(s, w)
	s.AddTools(mcpgo.Typed(w, mcp.NewTool("forecast", mcp.WithDescription("Weather forecast")),
		func(ctx context.Context, req mcp.CallToolRequest, args forecastArgs) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("sunny in " + args.City), nil
		}))
	return s
}

// docs/typed-arguments.md: a typed result.
func typedOut(w *wrap.Wrapper, s *server.MCPServer) {
	type forecastArgs struct {
		City string `json:"city" validate:"required"`
	}
	type forecast struct {
		City  string  `json:"city" validate:"required"`
		TempC float64 `json:"temp_c" validate:"min=-90,max=60"`
	}

	s.AddTools(mcpgo.Typed(w, mcp.NewTool("forecast"),
		func(ctx context.Context, req mcp.CallToolRequest, a forecastArgs) (forecast, error) {
			return forecast{City: a.City, TempC: 21}, nil
		}))
}

// docs/typed-arguments.md: the schema without the typed handler.
func schemaOnly(w *wrap.Wrapper, s *server.MCPServer, handleForecast server.ToolHandlerFunc) {
	type forecastArgs struct {
		City string `json:"city" validate:"required" description:"City name"`
	}

	b := validate.MustNew[forecastArgs]()
	s.AddTools(mcpgo.Tool(w, mcp.NewToolWithRawSchema("forecast", "", b.Schema()), handleForecast))
}

// docs/typed-arguments.md: a typed prompt.
func typedPrompt(s *server.MCPServer) {
	type summaryArgs struct {
		Topic string `json:"topic" validate:"required" description:"What to summarise"`
		Style string `json:"style" validate:"omitempty,oneof=short long" description:"short or long"`
	}

	s.AddPrompts(mcpgo.TypedPrompt(mcp.NewPrompt("summary"),
		func(ctx context.Context, req mcp.GetPromptRequest, a summaryArgs) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("summary of "+a.Topic, nil), nil
		}))
}

// docs/resilience.md: timeouts and retries.
func timeoutsAndRetries(logger *slog.Logger) *wrap.Wrapper {
	w := wrap.New(wrap.WithLogger(logger),
		wrap.WithTimeout(30*time.Second),                                                 // every tool
		wrap.ForTool("copy_file", wrap.WithTimeout(2*time.Minute)),                       // this one
		wrap.WithRetry(wrap.RetryPolicy{}),                                               // read-only or idempotent tools only
		wrap.ForTool("get_forecast", wrap.WithRetry(wrap.RetryPolicy{Idempotent: true})), // declared safe although not annotated
	)
	return w
}

// docs/resilience.md: an upstream behind a holder and its breaker.
func upstreams(ctx context.Context, logger *slog.Logger, w *wrap.Wrapper,
	dialHTTP func(context.Context) (*http.Client, error), ping func(context.Context, *http.Client) error,
	closeIdle func(*http.Client) error, req *http.Request) (*mcp.CallToolResult, error) {
	api := upstream.New("weather-api", dialHTTP, // reconnecting client + circuit breaker
		upstream.WithHealth(ping), upstream.WithClose(closeIdle), upstream.WithLogger(logger),
		upstream.WithEvents(w.UpstreamEvent)) // reconnects and breaker changes on the calling span
	defer api.Close()

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
	return mcp.NewToolResultText("ok"), nil
}

// docs/resilience.md: the bulkhead.
func bulkhead(logger *slog.Logger) *wrap.Wrapper {
	w := wrap.New(wrap.WithLogger(logger), wrap.WithBulkhead(wrap.Bulkhead{
		PerTool:    128,         // the default; negative = no per-tool limit
		Total:      512,         // all tools of the Wrapper together; 0 (the default) = no total limit
		RetryAfter: time.Second, // suggested to the model when refused (the default)
	}))
	return w
}

// docs/resilience.md: stopping — the server first, then the Wrapper whose
// hooks close it, attached last.
func stopping(logger *slog.Logger) {
	s := server.NewMCPServer("weather", "1.0.0")
	hs := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{})
	w := wrap.New(wrap.WithLogger(logger), wrap.WithFatalExit(process.FatalExit{
		Drain:   10 * time.Second,                           // wait for calls in flight to be answered (the default)
		Grace:   100 * time.Millisecond,                     // then for the last answers to be written (the default)
		Timeout: 5 * time.Second,                            // the hooks' own budget (the default)
		Hooks:   []func(context.Context) error{hs.Shutdown}, // then the log buffer and telemetry are flushed
		Signals: []os.Signal{syscall.SIGTERM, os.Interrupt}, // optional: stop the same way on a signal, exit 0
	}))
	mcpgo.Attach(s, w)
	log.Fatal(hs.ListenAndServe("127.0.0.1:8080"))
}

// docs/resilience.md: start-up checks.
func checks(logger *slog.Logger, configPath string) {
	var conf struct{ Cities []string }
	var c process.Checks // every problem at once, then exit 78
	key, base := c.Env("WEATHER_API_KEY"), c.EnvURL("WEATHER_API_URL")
	c.JSONFile(configPath, &conf)
	c.MustPass(logger)
	_, _ = key, base
}

// docs/resilience.md: limits of the HTTP transport.
func serverLimits(s *server.MCPServer) {
	hs := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{
		MaxBodyBytes:      4 << 20,          // the default, 4 MiB; negative = no cap
		SessionIdleTTL:    30 * time.Minute, // the default; negative = never
		ReadHeaderTimeout: 10 * time.Second, // the default, for Serve/ListenAndServe
	})
	log.Fatal(hs.ListenAndServe("127.0.0.1:8080")) // or mount hs (an http.Handler) at /mcp
}

// docs/rate-limits.md: a local limit.
func rateLimit() *server.MCPServer {
	lim := limit.New(limit.Rate{Limit: 10, Per: time.Minute}, limit.WithTool("search", limit.Rate{Limit: 2, Per: time.Second}))
	s := server.NewMCPServer("search", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLimit(lim)))
	return s
}

// docs/telemetry.md: what arguments are logged.
func argumentModes(l *slog.Logger) *wrap.Wrapper {
	w := wrap.New(wrap.WithLogger(l),
		wrap.ForTool("search", wrap.WithArgumentValues()),   // this tool: {"query":"weather in Rome","limit":5}
		wrap.ForTool("write_file", wrap.WithoutArguments())) // this tool: no arguments at all (secrets in them are still scrubbed from causes)
	return w
}

// docs/retrofit.md: argument values for some tools. docs/releasing.md:
// what replaces WithObserver and WithLogHandler.
func argumentValues(logger *slog.Logger, s *server.MCPServer, h slog.Handler) *wrap.Wrapper {
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logger), wrap.ForTool("search", wrap.WithArgumentValues()), wrap.ForTool("get_forecast", wrap.WithArgumentValues())))
	w := wrap.New(wrap.WithLogger(slog.New(h)))
	return w
}

// docs/retrofit.md: the answer cap per tool.
func answerCap(logger *slog.Logger) (*wrap.Wrapper, *wrap.Wrapper) {
	w := wrap.New(wrap.WithLogger(logger),
		wrap.ForTool("read_file", wrap.WithResultLimit(8<<20)), // this tool: up to 8 MiB
		wrap.ForTool("export_table", wrap.WithResultLimit(-1))) // this tool: no cap
	all := wrap.New(wrap.WithResultLimit(4 << 20)) // every tool: 4 MiB (0 restores the default, -1 turns it off)
	return w, all
}

// docs/client.md: the calling side.
func callingSide(ctx context.Context, url string, logger *slog.Logger, req mcp.CallToolRequest) {
	hc := &http.Client{Transport: outbound.NewTransport(nil)} // sees every POST; SSE read event by event as mcp-go reads it
	tr, _ := transport.NewStreamableHTTP(url, transport.WithHTTPBasicClient(hc))
	mc := client.NewClient(tr) // Start, Initialize as usual
	c := outbound.New(mc, outbound.WithLogger(logger.With("client", "gateway@1")), outbound.WithRetry(outbound.RetryLimits{}),
		outbound.WithIdempotent(func(tool string) bool { return tool == "get_forecast" }))
	rep := c.Call(ctx, req)          // rep.Outcome, rep.HTTPStatuses, rep.PostCount, rep.Advice, rep.Result, rep.Err
	res, err := c.CallTool(ctx, req) // drop-in: a transport/protocol outcome, or a result the wire contradicts, is always a *outbound.CallError
	_, _, _ = rep, res, err
}

// docs/vet.md: a suppressed finding.
func suppressed() (*mcp.CallToolResult, error) {
	//mcpwrap:ignore masked the operator reads this one in the log; the model gets the generic sentence on purpose
	return nil, fmt.Errorf("lockdown cache is not configured")
}
