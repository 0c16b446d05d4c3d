// Command tour shows, with a real server and a real client, what the model
// receives for each kind of tool failure with and without mcpwrap.
//
//	go run ./examples/tour
//
// It starts two streamable-HTTP mcp-go servers on 127.0.0.1 with the same
// tools, one bare and one with wrap.Middleware, calls every tool on both and
// prints, per call, what the model gets and what the operator's log says.
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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
)

func main() {
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
}

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
			return nil, errors.New(`pq: password authentication failed for user "weather" (postgres://weather:s3cret@10.0.3.7/history)`)
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
			return nil, nil
		}},
		{Tool: mcp.NewTool("get_radar"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, nil
		}},
		{Tool: mcp.NewTool("get_uv_index"), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("UV index is not available for this region"), nil
		}},
		{Tool: mcp.NewTool("get_satellite"), Handler: func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			time.Sleep(2 * time.Second) // an upstream that ignores cancellation
			return mcp.NewToolResultText("satellite image ready"), nil
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
	bare, err := testserver.Serve(bareSrv, client.WithElicitationHandler(acceptAll{}))
	if err != nil {
		return err
	}
	defer bare.Close()

	tel, err := observe.Setup(ctx, observe.ServiceName("mcpwrap-tour"))
	if err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = tel.Shutdown(sctx)
	}()
	var logs logbuf.Buffer
	obs := observe.New(append(tel.Options(), observe.WithLogger(logs.Logger()))...)
	wrappedSrv := server.NewMCPServer("weather", "1.0.0", append(obs.ServerOptions(),
		server.WithToolHandlerMiddleware(wrap.Middleware(
			wrap.WithObserver(obs),
			wrap.WithToolTimeout("get_satellite", 500*time.Millisecond),
		)),
	)...)
	wrappedSrv.AddTools(tools(closedAddr, limited.URL)...)
	wrapped, err := testserver.Serve(wrappedSrv, client.WithElicitationHandler(acceptAll{}),
		client.WithMetaPropagator(obs.MetaPropagator()))
	if err != nil {
		return err
	}
	defer wrapped.Close()

	fmt.Fprintf(out, "mcpwrap tour: the same %d calls against a bare mcp-go server and one with wrap.Middleware\n", len(steps))
	var failures []string
	for i, s := range steps {
		fmt.Fprintf(out, "\n%d. %s — %s\n", i+1, s.tool, s.what)
		start := time.Now()
		res, err := bare.Call(ctx, s.tool, s.args)
		fmt.Fprintf(out, "   without mcpwrap: %s (%s)\n", describe(res, err), since(start))
		seen := len(lines(&logs))
		start = time.Now()
		sctx, span := tel.TracerProvider.Tracer("tour").Start(ctx, fmt.Sprintf("tour step %d", i+1),
			trace.WithSpanKind(trace.SpanKindClient))
		res, err = wrapped.Call(sctx, s.tool, s.args)
		span.End()
		fmt.Fprintf(out, "   with mcpwrap:    %s (%s)\n", describe(res, err), since(start))
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", s.tool, err))
		}
		for _, l := range lines(&logs)[seen:] {
			fmt.Fprintf(out, "   operator log:    %s\n", summarize(l))
		}
	}
	if len(failures) > 0 {
		return fmt.Errorf("the wrapped server answered with protocol errors: %s", strings.Join(failures, "; "))
	}
	fmt.Fprintf(out, "\nEvery wrapped call answered with a result; %d JSON-RPC errors on the wrapped wire.\n", len(wrapped.Wire.JSONRPCErrors()))
	if tel.Exporting {
		fmt.Fprintln(out, "Spans exported over OTLP as service \"mcpwrap-tour\" (see the trace_id of each log line).")
	}
	return nil
}

// describe renders what the model receives.
func describe(res *mcp.CallToolResult, err error) string {
	if err != nil {
		msg := err.Error()
		switch {
		case errors.Is(err, mcp.ErrInternalError):
			return "JSON-RPC error -32603: " + clip(msg, 110)
		case strings.Contains(msg, "EOF"), strings.Contains(msg, "connection reset"):
			return "connection dropped: " + clip(msg, 90)
		}
		return "error: " + clip(msg, 110)
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	return fmt.Sprintf("isError=%-5v \"%s\"", res.IsError, clip(strings.Join(text, " "), 140))
}

func lines(b *logbuf.Buffer) []map[string]any {
	l, _ := b.Lines()
	return l
}

// summarize renders the operator's log line, stack shortened.
func summarize(l map[string]any) string {
	keys := []string{"level", "msg", "tool", "outcome", "code", "call_id", "cause", "stack"}
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
		parts = append(parts, k+"="+clip(string(b), 120))
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
