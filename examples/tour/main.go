// Command tour shows, with a real server and a real client, what the model
// receives for each kind of tool failure with and without mcpwrap.
//
//	go run ./examples/tour
//
// It starts two streamable-HTTP mcp-go servers on 127.0.0.1 with the same
// tools, one bare and one with mcpgo.Attach, calls every tool on both and
// prints, per call, what the model gets and what the operator's log says;
// then the same kinds of failure on the official go-sdk, bare (a child
// process over stdio, which the panic kills) and with gosdk.Attach.
// It exits 1 if the wrapped server ever answers with a JSON-RPC error or a
// dropped connection.
//
// The wrapped server is observed with package observe, configured from the
// standard OTEL_* variables; with a local Jaeger running,
//
//	OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 go run ./examples/tour
//
// puts every call's span (service "mcpwrap-tour") into it, each a child of
// the client's "tour step" span through params._meta.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/observe/export"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

func main() {
	if serveGoSDKChild() {
		return
	}
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tour:", err)
		os.Exit(1)
	}
}

// step is one call of the tour.
type step struct {
	tool string
	what string
	args map[string]any
}

var steps = []step{
	{"get_forecast", "succeeds", map[string]any{"city": "Rome", "days": 3}},
	{"get_forecast", "bad arguments (days out of range)", map[string]any{"city": "Rome", "days": 30}},
	{"get_history", "database error carrying a DSN", nil},
	{"get_alerts", "upstream refuses the connection", nil},
	{"get_air_quality", "upstream answers 429 with Retry-After: 30", nil},
	{"get_pollen", "handler panics", nil},
	{"get_radar", "handler returns nil, nil", nil},
	{"get_uv_index", "handler sets isError itself", nil},
	{"get_satellite", "upstream hangs (timeout 500ms)", nil},
	{"plan_trip", "needs input (2026-07-28 input_required)", nil},
	{"cancel_order", "wrap.ProtocolError: a JSON-RPC error on purpose", nil},
}

// protocolStep is the one step whose wrapped answer is a JSON-RPC error by
// design (the escape hatch); every other wrapped answer must be a result.
const protocolStep = "cancel_order"

// tools are the handlers, identical on both servers.
func tools(closedAddr, limitedURL string) []server.ServerTool {
	return []server.ServerTool{
		{Tool: mcp.NewTool("get_air_quality"), Handler: func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, limitedURL, nil)
			if err != nil {
				return nil, err
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return nil, err
			}
			defer resp.Body.Close()
			if err := errs.FromStatus("weather-api", resp.StatusCode, resp.Header); err != nil {
				return nil, err
			}
			return mcp.NewToolResultText("air quality: good"), nil
		}},
		{Tool: mcp.NewTool("get_forecast", mcp.WithString("city"), mcp.WithNumber("days")),
			Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				days := req.GetInt("days", 1)
				if days < 1 || days > 14 {
					return nil, errs.Newf(errs.InvalidArgument, "parameter \"days\" must be between 1 and 14, got %d", days)
				}
				return mcp.NewToolResultText(fmt.Sprintf("%s: sunny for %d days", req.GetString("city", "?"), days)), nil
			}},
		{Tool: mcp.NewTool("get_history"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New(`pq: password authentication failed for user "weather" (postgres://weather:s3cret@10.0.3.7/history)`) //mcpwrap:ignore masked the tour shows a plain error side by side
		}},
		{Tool: mcp.NewTool("get_alerts"), Handler: func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var d net.Dialer
			c, err := d.DialContext(ctx, "tcp", closedAddr)
			if err != nil {
				return nil, fmt.Errorf("alerts upstream: %w", err)
			}
			_ = c.Close()
			return mcp.NewToolResultText("no alerts"), nil
		}},
		{Tool: mcp.NewTool("get_pollen"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var levels map[string]int
			//lint:ignore SA5000 the panic is the point
			levels["birch"]++ // assignment to entry in nil map
			return nil, nil   //mcpwrap:ignore nilresult the tour shows what each SDK makes of nil, nil
		}},
		{Tool: mcp.NewTool("get_radar"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, nil //mcpwrap:ignore nilresult the tour shows what each SDK makes of nil, nil
		}},
		{Tool: mcp.NewTool("get_uv_index"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("UV index is not available for this region"), nil
		}},
		{Tool: mcp.NewTool("get_satellite"), Handler: func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			time.Sleep(2 * time.Second) // an upstream that ignores cancellation
			return mcp.NewToolResultText("satellite image ready"), nil
		}},
		{Tool: mcp.NewTool(protocolStep), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// On a bare server any error is a -32603; with mcpwrap only an
			// error marked this way is.
			return nil, wrap.ProtocolError(errors.New("order service requires a signed session"))
		}},
		{Tool: mcp.NewTool("plan_trip"), Handler: func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.RequestState == "" {
				return server.NewInputRequestBuilder("asked-dates").
					Elicit("dates", mcp.ElicitationParams{Message: "Which dates?", RequestedSchema: map[string]any{"type": "object"}}).
					ToolResult(), nil
			}
			return mcp.NewToolResultText("trip planned for the dates given"), nil
		}},
	}
}

type acceptAll struct{}

func (acceptAll) Elicit(context.Context, mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{
		Action: mcp.ElicitationResponseActionAccept, Content: map[string]any{"dates": "1-3 June"}}}, nil
}

func run(ctx context.Context, out io.Writer) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	closedAddr := ln.Addr().String()
	_ = ln.Close()
	// An upstream that is rate limiting everyone.
	limited := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "30")
		http.Error(w, "quota exceeded", http.StatusTooManyRequests)
	}))
	defer limited.Close()

	bareSrv := server.NewMCPServer("weather", "1.0.0")
	bareSrv.AddTools(tools(closedAddr, limited.URL)...)
	bare, err := serve(ctx, bareSrv, client.WithElicitationHandler(acceptAll{}))
	if err != nil {
		return err
	}
	defer bare.close()

	tel, err := export.Setup(ctx, export.Config{ServiceName: "mcpwrap-tour"})
	if err != nil {
		return err
	}
	shutdown := func() error {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		return tel.Shutdown(sctx)
	}
	defer func() { _ = shutdown() }()
	var logs logLines
	w := wrap.New(
		wrap.WithLogger(logs.logger()),
		wrap.WithTelemetry(tel.Options()...),
		wrap.ForTool("get_satellite", wrap.WithTimeout(500*time.Millisecond)),
	)
	wrappedSrv := server.NewMCPServer("weather", "1.0.0")
	mcpgo.Attach(wrappedSrv, w)
	wrappedSrv.AddTools(tools(closedAddr, limited.URL)...)
	wrapped, err := serve(ctx, wrappedSrv, client.WithElicitationHandler(acceptAll{}),
		client.WithMetaPropagator(mcpgo.MetaPropagator(w)))
	if err != nil {
		return err
	}
	defer wrapped.close()

	fmt.Fprintf(out, "mcpwrap tour: the same %d calls against a bare mcp-go server and one with mcpgo.Attach\n", len(steps))
	var failures []string
	protocolErrors := 0
	for i, s := range steps {
		fmt.Fprintf(out, "\n%d. %s — %s\n", i+1, s.tool, s.what)
		start := time.Now()
		res, err := bare.CallTool(ctx, callRequest(s))
		fmt.Fprintf(out, "   without mcpwrap: %s (%s)\n", describe(res, err), since(start))
		seen := logs.count()
		start = time.Now()
		sctx, span := tel.TracerProvider.Tracer("tour").Start(ctx, fmt.Sprintf("tour step %d", i+1),
			trace.WithSpanKind(trace.SpanKindClient))
		res, err = wrapped.CallTool(sctx, callRequest(s))
		span.End()
		fmt.Fprintf(out, "   with mcpwrap:    %s (%s)\n", describe(res, err), since(start))
		if err != nil {
			protocolErrors++
			if s.tool != protocolStep {
				failures = append(failures, fmt.Sprintf("%s: %v", s.tool, err))
			}
		}
		for _, l := range logs.since(seen) {
			fmt.Fprintf(out, "   operator log:    %s\n", summarize(l))
		}
	}
	if len(failures) > 0 {
		return fmt.Errorf("the wrapped server answered with protocol errors: %s", strings.Join(failures, "; "))
	}
	if err := goSDKTour(ctx, out); err != nil {
		return err
	}
	fmt.Fprintf(out, "\nEvery wrapped call answered with a result except the ProtocolError step: %d JSON-RPC error on the wrapped wire.\n", protocolErrors)
	if tel.Exporting {
		if err := shutdown(); err != nil {
			fmt.Fprintf(out, "Span export FAILED (%v); the trace_id of each log line names a trace that was not stored.\n", err)
		} else {
			fmt.Fprintln(out, "Spans exported over OTLP as service \"mcpwrap-tour\": look up the trace_id of a log line in your tracing backend.")
		}
	}
	return nil
}

// conn is a real streamable-HTTP server on 127.0.0.1 and a client of it.
type conn struct {
	*client.Client
	close func()
}

// serve starts s over streamable HTTP on a free loopback port and connects
// an initialized client to it.
func serve(ctx context.Context, s *server.MCPServer, opts ...client.ClientOption) (*conn, error) {
	hs := httptest.NewUnstartedServer(server.NewStreamableHTTPServer(s))
	// The bare server's panic drops the connection; the client's "EOF" says
	// so, net/http's stack on stderr would only drown the comparison.
	hs.Config.ErrorLog = log.New(io.Discard, "", 0)
	hs.Start()
	tr, err := transport.NewStreamableHTTP(hs.URL + "/mcp")
	if err != nil {
		hs.Close()
		return nil, err
	}
	c := client.NewClient(tr, opts...)
	err = c.Start(ctx)
	if err == nil {
		_, err = c.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
			ClientInfo: mcp.Implementation{Name: "tour", Version: "1.0.0"},
		}})
	}
	if err != nil {
		_ = c.Close()
		hs.Close()
		return nil, err
	}
	return &conn{Client: c, close: func() { _ = c.Close(); hs.CloseClientConnections(); hs.Close() }}, nil
}

func callRequest(s step) mcp.CallToolRequest {
	var req mcp.CallToolRequest
	req.Params.Name = s.tool
	req.Params.Arguments = s.args
	return req
}

// logLines is the operator's log: JSON lines kept in memory.
type logLines struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logLines) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func (l *logLines) all() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(l.buf.Bytes()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

func (l *logLines) count() int { return len(l.all()) }

func (l *logLines) since(n int) []map[string]any { return l.all()[n:] }

// describe renders what the model receives, in full: the text, and for an
// error result the machine-readable fields a client can act on.
func describe(res *mcp.CallToolResult, err error) string {
	if err != nil {
		msg := err.Error()
		switch {
		case errors.Is(err, mcp.ErrInternalError):
			return "JSON-RPC error -32603: " + clip(msg, 300)
		case strings.Contains(msg, "EOF"), strings.Contains(msg, "connection reset"):
			return "connection dropped: " + clip(msg, 300)
		}
		return "error: " + clip(msg, 300)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	s := fmt.Sprintf("isError=%-5v \"%s\"", res.IsError, clip(strings.Join(text, " "), 300))
	if info, ok := mcpgo.InfoOf(res); ok {
		s += fmt.Sprintf(" [code=%s retryable=%v", info.Code, info.Retryable)
		if info.RetryAfterSeconds > 0 {
			s += fmt.Sprintf(" retryAfterSeconds=%d", info.RetryAfterSeconds)
		}
		if info.SideEffects != "" {
			s += " sideEffects=" + info.SideEffects
		}
		s += "]"
	}
	return s
}

// summarize renders the operator's log line, stack shortened.
func summarize(l map[string]any) string {
	keys := []string{"level", "msg", "tool", "outcome", "code", "call_id", "trace_id", "cause", "stack"}
	var parts []string
	for _, k := range keys {
		v, ok := l[k]
		if !ok {
			continue
		}
		s := fmt.Sprint(v)
		if k == "stack" {
			s = fmt.Sprintf("(%d lines)", strings.Count(s, "\n"))
		}
		b, _ := json.Marshal(s)
		if !slices.Contains([]string{"cause", "msg"}, k) {
			b = []byte(s)
		}
		parts = append(parts, k+"="+clip(string(b), 200))
	}
	return strings.Join(parts, " ")
}

func since(t time.Time) string {
	return time.Since(t).Round(time.Millisecond).String()
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
