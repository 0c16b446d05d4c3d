// Command gosdk is an MCP server built with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) and retrofitted with mcpwrap in
// one line, gosdk.Attach: copy it to start a server of your own.
//
//	go run ./examples/gosdk                          # stdio, for an MCP host
//	go run ./examples/gosdk -http 127.0.0.1:8080     # streamable HTTP on /mcp
//
// Its tools show what the retrofit changes: "forecast" is a go-sdk typed
// tool (mcp.AddTool, go-sdk's schema), "forecast_v2" the same tool through
// gosdk.AddTool (validate's schema: every bad argument at once, with
// did-you-mean), "order" fails with an error holding a DSN and "crash"
// panics. Bare, "crash" would kill the process and "order" would send the
// password to the model; wrapped, "crash" is an isError result with a call
// id, "order" the error's words with the password and host replaced
// ("dial postgres://[host]/orders: connection refused (call id …)"), and the details
// are in the JSON log line on stderr.
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

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr, nil); err != nil {
		fmt.Fprintln(os.Stderr, "gosdk:", err)
		os.Exit(1)
	}
}

// Forecast is the arguments of both forecast tools. go-sdk reads the json
// and jsonschema tags; package validate reads the validate tags too.
type Forecast struct {
	City string `json:"city" jsonschema:"the city" validate:"required"`
	Days int    `json:"days" jsonschema:"how many days, 1 to 14" validate:"required,min=1,max=14"`
}

// Summary is the structured result of the forecast tools.
type Summary struct {
	Text string `json:"text"`
}

func forecast(_ context.Context, _ *mcp.CallToolRequest, in Forecast) (*mcp.CallToolResult, Summary, error) {
	if in.City == "Atlantis" {
		return nil, Summary{}, errs.Newf(errs.NotFound, "no weather station in %q", in.City)
	}
	return nil, Summary{Text: fmt.Sprintf("%d days of sun in %s", in.Days, in.City)}, nil
}

// newServer builds the server as any go-sdk server is built, then attaches
// w: the one line of the retrofit.
func newServer(w *wrap.Wrapper) (*mcp.Server, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "gosdk-example", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "forecast", Description: "Weather forecast (go-sdk typed tool)"}, forecast)
	gosdk.AddTool(s, w, &mcp.Tool{Name: "forecast_v2", Description: "Weather forecast (validated by mcpwrap)",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, forecast)
	s.AddTool(&mcp.Tool{Name: "order", Description: "Place an order", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("insert order: dial postgres://shop:s3cret@db:5432/orders: connection refused") //mcpwrap:ignore masked the example shows a DSN scrubbed
		})
	s.AddTool(&mcp.Tool{Name: "crash", Description: "Panics", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var m map[string]int
			m["boom"]++     // a nil map: a panic, which bare go-sdk does not recover
			return nil, nil //mcpwrap:ignore nilresult unreachable: the line above panics
		})
	s.AddResource(&mcp.Resource{URI: "notes://today", Name: "today", MIMEType: "text/plain"},
		func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "buy milk"}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "plan", Arguments: []*mcp.PromptArgument{{Name: "city", Required: true}}},
		func(_ context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user",
				Content: &mcp.TextContent{Text: "Plan a day in " + r.Params.Arguments["city"]}}}}, nil
		})
	gosdk.Attach(s, w)
	return s, nil
}

// run serves over stdio, or over streamable HTTP with -http; ready, when
// set, gets the HTTP address once it listens (for tests).
func run(ctx context.Context, args []string, logOut io.Writer, ready func(addr string)) error {
	fs := flag.NewFlagSet("gosdk", flag.ContinueOnError)
	addr := fs.String("http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// The Wrapper is built once; everything that must outlive a server
	// (limits, bulkheads, instruments) lives in it. Log lines are JSON on
	// stderr: stdout belongs to the protocol over stdio.
	logger := slog.New(slog.NewJSONHandler(logOut, nil))
	w := wrap.New(wrap.WithLogger(logger), wrap.WithTelemetry(), wrap.WithTimeout(25*time.Second))
	s, err := newServer(w)
	if err != nil {
		return err
	}
	if *addr == "" {
		return s.Run(ctx, gosdk.Transport(&mcp.StdioTransport{})) // answers what go-sdk would end the session on
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	logger.Info("listening", slog.String("url", "http://"+ln.Addr().String()+"/mcp"))
	if ready != nil {
		ready(ln.Addr().String())
	}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
