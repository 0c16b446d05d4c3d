// Command weather is an MCP server whose tools call a real upstream HTTP
// API, kept working through the upstream's failures by mcpwrap:
//
//	go run ./examples/weather                 # demo: drives itself, prints what happens, exits 0
//	go run ./examples/weather -demo=false -upstream https://api.example.com -listen 127.0.0.1:8080
//
// It shows four lines of defence: start-up checks that
// report every problem at once (process.Checks), a reconnecting client with a
// circuit breaker (upstream.Holder), retries of the read-only tool only
// (wrap.WithRetry, honouring Retry-After), and the fatal exit
// (wrap.WithFatalExit). In demo mode the upstream is an in-process HTTP
// server on 127.0.0.1 that the demo stops, restarts on the same port and
// makes answer 429 and 503.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/observe/export"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
	"github.com/mcpwrap/mcpwrap/wrap/outbound"
	"github.com/mcpwrap/mcpwrap/wrap/process"
	"github.com/mcpwrap/mcpwrap/wrap/upstream"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "weather:", err)
		os.Exit(1)
	}
}

// settings is what the start-up checks produce.
type settings struct {
	apiURL  *url.URL
	apiKey  string
	timeout time.Duration
}

// check validates the environment, collecting every problem.
func check(lookup func(string) (string, bool)) (settings, *process.Checks) {
	c := &process.Checks{LookupEnv: lookup}
	s := settings{
		apiKey:  c.Env("WEATHER_API_KEY"),
		apiURL:  c.EnvURL("WEATHER_API_URL"),
		timeout: c.EnvDuration("WEATHER_TIMEOUT", 3*time.Second),
	}
	return s, c
}

func run(ctx context.Context, args []string, out, logOut io.Writer) error {
	fs := flag.NewFlagSet("weather", flag.ContinueOnError)
	demo := fs.Bool("demo", true, "start an in-process upstream, drive the server with a client, print what happens and exit")
	upstreamURL := fs.String("upstream", "", "base URL of the weather API (sets WEATHER_API_URL)")
	listen := fs.String("listen", "127.0.0.1:8080", "address to serve streamable HTTP on (with -demo=false)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// JSON lines under a process manager or a pipe; tint's coloured text on a
	// terminal (MCPWRAP_LOG_FORMAT=json|text and MCPWRAP_LOG_LEVEL override).
	logger := observe.NewLogger(observe.WithLogOutput(logOut))

	var api *fakeAPI
	env := map[string]string{}
	if *demo {
		var err error
		if api, err = startFakeAPI(); err != nil {
			return err
		}
		defer api.Stop()
		env["WEATHER_API_URL"] = "http://" + api.Addr
		env["WEATHER_API_KEY"] = "demo-key"
	}
	if *upstreamURL != "" {
		env["WEATHER_API_URL"] = *upstreamURL
	}
	lookup := func(k string) (string, bool) {
		if v, ok := env[k]; ok {
			return v, true
		}
		return os.LookupEnv(k)
	}

	if *demo {
		// What an operator sees when the environment is wrong: every
		// problem at once, then exit status 78.
		_, bad := check(func(k string) (string, bool) {
			if k == "WEATHER_TIMEOUT" {
				return "soon", true
			}
			return "", false
		})
		fmt.Fprintf(out, "start-up checks on an empty environment would exit %d with:\n", process.ExitConfig)
		for _, p := range bad.Problems() {
			fmt.Fprintf(out, "  - %s\n", p)
		}
	}
	cfg, checks := check(lookup)
	checks.MustPass(logger)

	// Telemetry from the OTEL_* variables (nothing set: spans stay in the
	// process, nothing is exported); the fatal exit flushes it.
	tel, err := export.Setup(ctx, export.Config{ServiceName: "mcpwrap-weather", Logger: logger})
	if err != nil {
		return err
	}
	defer func() {
		if err := tel.Shutdown(context.Background()); err != nil {
			logger.Error("telemetry flush at exit", "error", err)
		}
	}()
	w := wrap.New(
		wrap.WithLogger(logger),
		wrap.WithTelemetry(tel.Options()...),
		wrap.WithTimeout(cfg.timeout),
		wrap.WithRetry(wrap.RetryPolicy{}),
		wrap.WithFatalExit(process.FatalExit{Hooks: []func(context.Context) error{tel.Shutdown}}),
	)

	weather := newWeatherClient(cfg, logger, w)
	defer weather.holder.Close()
	s := server.NewMCPServer("weather", "1.0.0")
	mcpgo.Attach(s, w)
	s.AddTools(weather.tools()...)

	if !*demo {
		fmt.Fprintf(out, "serving MCP on http://%s/mcp\n", *listen)
		hs := &http.Server{Addr: *listen, Handler: server.NewStreamableHTTPServer(s), ReadHeaderTimeout: 5 * time.Second}
		return hs.ListenAndServe()
	}
	return drive(ctx, s, api, weather, out)
}

// weatherClient holds the one upstream client the tools share.
type weatherClient struct {
	base   string
	key    string
	holder *upstream.Holder[*http.Client]
}

func newWeatherClient(cfg settings, logger *slog.Logger, wr *wrap.Wrapper) *weatherClient {
	w := &weatherClient{base: strings.TrimSuffix(cfg.apiURL.String(), "/"), key: cfg.apiKey}
	dial := func(context.Context) (*http.Client, error) {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = 32
		return &http.Client{Transport: tr}, nil
	}
	health := func(ctx context.Context, c *http.Client) error {
		_, err := w.get(ctx, c, "/healthz")
		return err
	}
	w.holder = upstream.New("weather-api", dial,
		upstream.WithHealth(health),
		upstream.WithClose(func(c *http.Client) error { c.CloseIdleConnections(); return nil }),
		upstream.WithPolicy(upstream.Policy{Backoff: 200 * time.Millisecond, MaxBackoff: 5 * time.Second}),
		upstream.WithLogger(logger),
		upstream.WithEvents(wr.UpstreamEvent)) // reconnects and breaker changes on the call's span
	return w
}

// get does one request and maps the upstream's status to an errs error.
func (w *weatherClient) get(ctx context.Context, c *http.Client, path string) ([]byte, error) {
	method := http.MethodGet
	if strings.HasPrefix(path, "/orders") {
		method = http.MethodPost
	}
	req, err := http.NewRequestWithContext(ctx, method, w.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+w.key)
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	return body, errs.FromStatus("weather-api", resp.StatusCode, resp.Header)
}

// call runs one request on the held client and reports how it went.
func (w *weatherClient) call(ctx context.Context, path string) ([]byte, error) {
	lease, err := w.holder.Get(ctx)
	if err != nil {
		return nil, err
	}
	body, err := w.get(ctx, lease.Client, path)
	return body, lease.Done(ctx, err)
}

func (w *weatherClient) tools() []server.ServerTool {
	return []server.ServerTool{
		{
			Tool: mcp.NewTool("get_forecast", mcp.WithDescription("Today's forecast for a city"),
				mcp.WithString("city", mcp.Required()), mcp.WithReadOnlyHintAnnotation(true)),
			Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				body, err := w.call(ctx, "/forecast?city="+url.QueryEscape(req.GetString("city", "")))
				if err != nil {
					return nil, err
				}
				var f struct {
					City    string `json:"city"`
					Celsius int    `json:"celsius"`
				}
				if err := json.Unmarshal(body, &f); err != nil {
					return nil, fmt.Errorf("decode forecast: %w", err)
				}
				return mcp.NewToolResultText(fmt.Sprintf("%s: %d°C", f.City, f.Celsius)), nil
			},
		},
		{
			// Not read-only, not idempotent: never retried automatically.
			Tool: mcp.NewTool("order_umbrella", mcp.WithDescription("Order an umbrella delivery"),
				mcp.WithString("city", mcp.Required()), mcp.WithDestructiveHintAnnotation(false)),
			Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if _, err := w.call(ctx, "/orders?city="+url.QueryEscape(req.GetString("city", ""))); err != nil {
					return nil, err
				}
				return mcp.NewToolResultText("umbrella ordered"), nil
			},
		},
	}
}

// drive is the demo: a real client calls the real server while the
// upstream misbehaves.
func drive(ctx context.Context, s *server.MCPServer, api *fakeAPI, w *weatherClient, out io.Writer) error {
	cl, stop, err := serve(s)
	if err != nil {
		return err
	}
	defer stop()
	// outbound classifies every answer as it crossed the wire.
	oc := outbound.New(cl)
	rpcErrors := 0
	call := func(what, tool string) *mcp.CallToolResult {
		begin := time.Now()
		var req mcp.CallToolRequest
		req.Params.Name = tool
		req.Params.Arguments = map[string]any{"city": "Lyon"}
		r := oc.Call(ctx, req)
		if r.Outcome == outbound.OutcomeJSONRPCError {
			rpcErrors++
		}
		res, err := r.Result, r.Err
		took := time.Since(begin).Round(10 * time.Millisecond)
		switch {
		case err != nil:
			fmt.Fprintf(out, "%-44s JSON-RPC/transport error: %v\n", what, err)
		case res.IsError:
			fmt.Fprintf(out, "%-44s isError=true  %q (%v)\n", what, res.Content[0].(mcp.TextContent).Text, took)
		default:
			fmt.Fprintf(out, "%-44s ok            %q (%v)\n", what, res.Content[0].(mcp.TextContent).Text, took)
		}
		return res
	}
	fmt.Fprintln(out, "\nthe MCP server, its upstream and the client are all real, on 127.0.0.1:")
	call("upstream healthy", "get_forecast")

	api.next(http.StatusTooManyRequests, "1")
	call("upstream answers 429, Retry-After: 1", "get_forecast")

	api.next(http.StatusServiceUnavailable, "")
	before := api.orders.Load()
	call("order on a 503 (not idempotent)", "order_umbrella")
	fmt.Fprintf(out, "%-44s %d\n", "  upstream order requests made:", api.orders.Load()-before)

	api.Stop()
	call("upstream down (process stopped)", "get_forecast")
	call("upstream still down", "get_forecast")
	st := w.holder.Stats()
	fmt.Fprintf(out, "%-44s breaker %s, retry after %v\n", "  holder:", st.State, st.RetryAfter.Round(10*time.Millisecond))

	if err := api.Restart(); err != nil {
		return err
	}
	time.Sleep(w.holder.Stats().RetryAfter)
	res := call("upstream back on the same port", "get_forecast")
	st = w.holder.Stats()
	fmt.Fprintf(out, "%-44s breaker %s, %d dials (%d failed), %d broken client(s); MCP server never restarted\n",
		"  holder:", st.State, st.Dials, st.FailedDials, st.Broken)
	if res == nil || res.IsError {
		return errors.New("the server did not recover after the upstream came back")
	}
	if rpcErrors != 0 {
		return fmt.Errorf("%d JSON-RPC errors on the wire", rpcErrors)
	}
	fmt.Fprintln(out, "0 JSON-RPC errors on the wire")
	return nil
}

// fakeAPI is the in-process upstream of the demo. It can be stopped and
// restarted on the same port (restartable), and told to answer the
// next request with a given status.
type fakeAPI struct {
	*restartable
	mu     sync.Mutex
	status int
	retry  string
	orders atomic.Int64
}

func startFakeAPI() (*fakeAPI, error) {
	a := &fakeAPI{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /forecast", func(w http.ResponseWriter, r *http.Request) {
		if a.failed(w) {
			return
		}
		fmt.Fprintf(w, `{"city":%q,"celsius":21}`, r.URL.Query().Get("city"))
	})
	mux.HandleFunc("POST /orders", func(w http.ResponseWriter, _ *http.Request) {
		a.orders.Add(1)
		if a.failed(w) {
			return
		}
		w.WriteHeader(http.StatusCreated)
	})
	var err error
	if a.restartable, err = newRestartable(mux); err != nil {
		return nil, err
	}
	return a, nil
}

// next makes the next request fail with status (and a Retry-After).
func (a *fakeAPI) next(status int, retryAfter string) {
	a.mu.Lock()
	a.status, a.retry = status, retryAfter
	a.mu.Unlock()
}

func (a *fakeAPI) failed(w http.ResponseWriter) bool {
	a.mu.Lock()
	status, retry := a.status, a.retry
	a.status = 0
	a.mu.Unlock()
	if status == 0 {
		return false
	}
	if retry != "" {
		w.Header().Set("Retry-After", retry)
	}
	w.WriteHeader(status)
	return true
}
