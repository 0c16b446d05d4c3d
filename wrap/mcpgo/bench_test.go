package mcpgo_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpwrap/mcpwrap/internal/benchmix"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// benchArgs is the 6-field typed tool of the side-by-side benchmarks.
type benchArgs struct {
	City   string  `json:"city" validate:"required,max=64"`
	Days   int     `json:"days" validate:"required,min=1,max=14"`
	Units  string  `json:"units" validate:"required,oneof=metric imperial"`
	Lat    float64 `json:"lat" validate:"gte=-90,lte=90"`
	Lon    float64 `json:"lon" validate:"gte=-180,lte=180"`
	Hourly bool    `json:"hourly"`
}

var forecastCall = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":` +
	`{"city":"Paris","days":3,"units":"metric","lat":48.85,"lon":2.35,"hourly":true}}}`)

var forecastResult = mcp.NewToolResultText("sunny")

func benchForecast(_ context.Context, _ mcp.CallToolRequest, a benchArgs) (*mcp.CallToolResult, error) {
	if a.City == "" {
		return nil, fmt.Errorf("no city")
	}
	return forecastResult, nil
}

// discardSpans is a span processor that drops every span: spans are
// recorded in full (attributes, status) and exported nowhere.
type discardSpans struct{}

func (discardSpans) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (discardSpans) OnEnd(sdktrace.ReadOnlySpan)                     {}
func (discardSpans) Shutdown(context.Context) error                  { return nil }
func (discardSpans) ForceFlush(context.Context) error                { return nil }

// benchObserver observes with everything on: a JSON log line per call to
// io.Discard, a recorded span, the duration metric read by a ManualReader.
func benchObserver(b *testing.B) *observe.Observer {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(discardSpans{}))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	return observe.New(observe.WithTracerProvider(tp), observe.WithMeterProvider(mp),
		observe.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))
}

// typedForms are the servers of BenchmarkTypedCall: bare mcp-go with its
// own typed handler, the wrapped server without telemetry, and the wrapped
// server observed.
func typedForms(b *testing.B) ([]string, []*server.MCPServer) {
	names := []string{"bare", "wrapped", "observed"}
	bare := server.NewMCPServer("bench", "1.0.0")
	bare.AddTool(mcp.NewTool("forecast"), mcp.NewTypedToolHandler(benchForecast))
	servers := []*server.MCPServer{bare}
	for _, w := range []*wrap.Wrapper{wrap.New(), wrap.New(wrap.WithObserver(benchObserver(b)))} {
		s := server.NewMCPServer("bench", "1.0.0", mcpgo.Option(w))
		s.AddTools(mcpgo.MustTyped(w, mcp.NewTool("forecast"), benchForecast))
		servers = append(servers, s)
	}
	return names, servers
}

// sessionContext is a context carrying a registered in-process session,
// as a transport hands it to HandleMessage.
func sessionContext(b *testing.B, s *server.MCPServer, id string) context.Context {
	sess := server.NewInProcessSession(id, nil)
	if err := s.RegisterSession(context.Background(), sess); err != nil {
		b.Fatal(err)
	}
	sess.Initialize()
	return s.WithContext(context.Background(), sess)
}

func handle(ctx context.Context, s *server.MCPServer) error {
	resp := s.HandleMessage(ctx, forecastCall)
	r, ok := resp.(mcp.JSONRPCResponse)
	if !ok {
		return fmt.Errorf("response %#v", resp)
	}
	if res, ok := r.Result.(*mcp.CallToolResult); !ok || res.IsError {
		return fmt.Errorf("not a successful tool result: %#v", r.Result)
	}
	return nil
}

// BenchmarkTypedCall measures a whole tools/call of a 6-field typed tool
// through mcp-go's HandleMessage (parsing, lookup, binding, the handler,
// the result) on one session, the three forms taking turns call by call:
// it reports each form's median (µs), its overhead over bare (%) and its
// ratio to bare (×bare).
func BenchmarkTypedCall(b *testing.B) {
	names, servers := typedForms(b)
	ctxs := make([]context.Context, len(servers))
	for i, s := range servers {
		ctxs[i] = sessionContext(b, s, "bench-session")
	}
	benchmix.Run(b, names, func(i int) error { return handle(ctxs[i], servers[i]) })
}

// BenchmarkTypedCallEach is BenchmarkTypedCall one form at a time, for
// the allocations of each and for profiling one form
// (-bench 'TypedCallEach/observed' -cpuprofile).
func BenchmarkTypedCallEach(b *testing.B) {
	names, servers := typedForms(b)
	for i, name := range names {
		b.Run(name, func(b *testing.B) {
			ctx := sessionContext(b, servers[i], "bench-session")
			b.ReportAllocs()
			for b.Loop() {
				if err := handle(ctx, servers[i]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// sessions is the number of concurrent sessions of BenchmarkTypedCall64.
const sessions = 64

// BenchmarkTypedCall64 is the throughput of 64 concurrent sessions: one
// round is every session making 4 calls at once on one form, the forms
// taking turns round by round; it reports each form's median round (µs,
// 256 calls), its overhead and ratio to bare.
func BenchmarkTypedCall64(b *testing.B) {
	names, servers := typedForms(b)
	ctxs := make([][]context.Context, len(servers))
	for i, s := range servers {
		for k := range sessions {
			ctxs[i] = append(ctxs[i], sessionContext(b, s, fmt.Sprintf("session-%d", k)))
		}
	}
	benchmix.Run(b, names, func(i int) error {
		var wg sync.WaitGroup
		errc := make(chan error, sessions)
		for _, ctx := range ctxs[i] {
			wg.Go(func() {
				for range 4 {
					if err := handle(ctx, servers[i]); err != nil {
						errc <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errc)
		return <-errc
	})
}
