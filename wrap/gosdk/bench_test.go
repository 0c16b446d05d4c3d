package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/benchmix"
	"github.com/mcpwrap/mcpwrap/internal/benchobs"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

var benchResult = &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}

// sdkNext stands for go-sdk's method handler behind the middleware
// (callTool finding the tool and running it).
func sdkNext(context.Context, string, mcp.Request) (mcp.Result, error) { return benchResult, nil }

var benchReq = &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "bench", Arguments: json.RawMessage(`{}`)}}

// observed is a Wrapper with everything on: a JSON log line per call (to
// io.Discard) and a recorded span per call (no exporter).
func observed(b *testing.B) *wrap.Wrapper {
	tp := sdktrace.NewTracerProvider()
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	o := obs.New(obs.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))), obs.WithTracerProvider(tp), obs.WithoutMetrics())
	return wrap.New(obstest.WithObserver(o))
}

// BenchmarkMiddleware measures, in one run, a tools/call through go-sdk's
// method handler alone (bare), behind the middleware without telemetry, and
// behind the middleware with a log line and a span per call.
func BenchmarkMiddleware(b *testing.B) {
	run := func(b *testing.B, h mcp.MethodHandler) {
		b.ReportAllocs()
		ctx := context.Background()
		for b.Loop() {
			if _, err := h(ctx, "tools/call", benchReq); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("bare", func(b *testing.B) { run(b, sdkNext) })
	b.Run("wrapped", func(b *testing.B) { run(b, gosdk.Middleware(wrap.New())(sdkNext)) })
	b.Run("observed", func(b *testing.B) { run(b, gosdk.Middleware(observed(b))(sdkNext)) })
}

// BenchmarkRoundTrip measures a whole tools/call from go-sdk's client to a
// go-sdk server over in-memory transports (encoding, dispatch, the tool,
// decoding): bare, wrapped without telemetry, wrapped observed. The three
// take turns call by call so that a busy machine slows them alike; it
// reports the median round trip of each (µs) and the overhead of the
// medians over bare (%).
func BenchmarkRoundTrip(b *testing.B) {
	forms := []struct {
		name string
		w    *wrap.Wrapper
	}{{"bare", nil}, {"wrapped", wrap.New()}, {"observed", observed(b)}}
	sessions := make([]*mcp.ClientSession, len(forms))
	for i, f := range forms {
		s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "read_file"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Path string `json:"path"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "contents of " + in.Path}}}, nil, nil
		})
		if f.w != nil {
			gosdk.Attach(s, f.w)
		}
		sessions[i] = connect(b, "memory", s, f.w != nil)
	}
	params := &mcp.CallToolParams{Name: "read_file", Arguments: json.RawMessage(`{"path":"/etc/hosts"}`)}
	ctx := context.Background()
	names := make([]string, len(forms))
	for i, f := range forms {
		names[i] = f.name
	}
	benchmix.Run(b, names, func(i int) error {
		res, err := sessions[i].CallTool(ctx, params)
		if err == nil && res.IsError {
			err = fmt.Errorf("error result %+v", res.Content)
		}
		return err
	})
}

// BenchmarkAttach measures attaching a Wrapper to a server built per HTTP
// request: mcp.NewServer alone, and mcp.NewServer plus Attach.
func BenchmarkAttach(b *testing.B) {
	w := observed(b)
	impl := &mcp.Implementation{Name: "per-request", Version: "1"}
	b.Run("new_server", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = mcp.NewServer(impl, nil)
		}
	})
	b.Run("new_server+attach", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			gosdk.Attach(mcp.NewServer(impl, nil), w)
		}
	})
}

// TestAttachIsCheap: attaching allocates a few small objects (the
// receiving middleware's closure, the sending one that sees progress and
// list changes, holding the Wrapper, and go-sdk's) and starts no goroutine.
func TestAttachIsCheap(t *testing.T) {
	adaptercases.CheckAttachIsCheap(t, perRequest, wrap.New(wrap.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil)))), 6)
}

// TestNoTelemetryPathAllocatesNothing guards the adapter's side of the
// zero-cost promise: without telemetry or a timeout, a successful
// tools/call through the middleware allocates nothing.
func TestNoTelemetryPathAllocatesNothing(t *testing.T) {
	h := gosdk.Middleware(wrap.New())(sdkNext)
	ctx := context.Background()
	allocs := testing.AllocsPerRun(1000, func() {
		if _, err := h(ctx, "tools/call", benchReq); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("success path allocates %.1f times per call, want 0", allocs)
	}
}

func benchForecast(_ context.Context, _ *mcp.CallToolRequest, a benchmix.Args) (*mcp.CallToolResult, any, error) {
	if a.City == "" {
		return nil, nil, fmt.Errorf("no city")
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}}, nil, nil
}

var benchArgsJSON = json.RawMessage(benchmix.ArgsJSON)

// typedServers are the servers of BenchmarkTypedRoundTrip: bare go-sdk
// with its own typed handler (mcp.AddTool), the Wrapper attached with
// gosdk.AddTool and no telemetry, and the same observed (a JSON line, an SDK
// span dropped by its processor, the metrics on a ManualReader); then, as
// on mcp-go, sampled_out (ParentBased(TraceIDRatioBased(0.1))),
// unsampled_parent (observed, called with a traceparent with flags 00 in
// _meta: unsampledParams), log_only (slog.NewJSONHandler alone) and
// log_newlogger (observe.NewLogger alone).
func typedServers(b *testing.B) ([]string, []*mcp.Server) {
	names := []string{"bare", "wrapped", "observed", "sampled_out", "unsampled_parent", "log_only", "log_newlogger"}
	var servers []*mcp.Server
	for _, w := range []*wrap.Wrapper{nil, wrap.New(), wrap.New(obstest.WithObserver(benchobs.Observer(b))),
		wrap.New(obstest.WithObserver(benchobs.Observer(b, benchobs.SampledOut()))),
		wrap.New(obstest.WithObserver(benchobs.Observer(b))),
		wrap.New(wrap.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil)))),
		wrap.New(wrap.WithLogger(observe.NewLogger(observe.WithLogOutput(io.Discard), observe.WithLogFormat("json"))))} {
		s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		if w == nil {
			mcp.AddTool(s, &mcp.Tool{Name: "forecast"}, benchForecast)
		} else {
			gosdk.Attach(s, w)
			gosdk.AddTool(s, w, &mcp.Tool{Name: "forecast"}, benchForecast)
		}
		servers = append(servers, s)
	}
	return names, servers
}

// unsampledParams are the call of the unsampled_parent form.
var unsampledParams = func() *mcp.CallToolParams {
	var meta map[string]any
	if err := json.Unmarshal([]byte(benchobs.UnsampledParent), &meta); err != nil {
		panic(err)
	}
	return &mcp.CallToolParams{Meta: meta, Name: "forecast", Arguments: benchArgsJSON}
}()

func callForecast(ctx context.Context, cs *mcp.ClientSession) error {
	return callWith(ctx, cs, &mcp.CallToolParams{Name: "forecast", Arguments: benchArgsJSON})
}

func callWith(ctx context.Context, cs *mcp.ClientSession, p *mcp.CallToolParams) error {
	res, err := cs.CallTool(ctx, p)
	if err == nil && res.IsError {
		err = fmt.Errorf("error result %+v", res.Content)
	}
	return err
}

// formCall calls the forecast tool as form name does.
func formCall(name string) func(context.Context, *mcp.ClientSession) error {
	if name == "unsampled_parent" {
		return func(ctx context.Context, cs *mcp.ClientSession) error { return callWith(ctx, cs, unsampledParams) }
	}
	return callForecast
}

// BenchmarkTypedRoundTrip measures a whole tools/call of a 6-field typed
// tool from go-sdk's client to its server over in-memory transports, the
// three forms taking turns call by call; it reports each form's median
// (µs), overhead (%) and ratio to bare (×bare).
func BenchmarkTypedRoundTrip(b *testing.B) {
	names, servers := typedServers(b)
	sessions := make([]*mcp.ClientSession, len(servers))
	calls := make([]func(context.Context, *mcp.ClientSession) error, len(servers))
	for i, s := range servers {
		sessions[i] = connect(b, "memory", s, i > 0)
		calls[i] = formCall(names[i])
	}
	ctx := context.Background()
	benchmix.Run(b, names, func(i int) error { return calls[i](ctx, sessions[i]) })
}

// BenchmarkTypedRoundTrip64 is the throughput of 64 concurrent sessions
// on each form: one round is every session making 4 calls at once, the
// forms taking turns round by round.
func BenchmarkTypedRoundTrip64(b *testing.B) {
	const n = 64
	names, servers := typedServers(b)
	sessions := make([][]*mcp.ClientSession, len(servers))
	for i, s := range servers {
		for range n {
			sessions[i] = append(sessions[i], connect(b, "memory", s, i > 0))
		}
	}
	ctx := context.Background()
	benchmix.Run(b, names, func(i int) error {
		call := formCall(names[i])
		var wg sync.WaitGroup
		errc := make(chan error, n)
		for _, cs := range sessions[i] {
			wg.Go(func() {
				for range 4 {
					if err := call(ctx, cs); err != nil {
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
