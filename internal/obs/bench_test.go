package obs_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/redact"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// BenchmarkTelemetry compares, in one run, a whole tools/call through
// mcp-go's HandleMessage with mcp-go's own WithRecovery+WithTracer+WithLogger
// and with mcpwrap's chain observed by package observe, both recording
// spans with the SDK (exported synchronously to a no-op exporter) and
// logging JSON to io.Discard; bare is the floor.
func BenchmarkTelemetry(b *testing.B) {
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bench","arguments":{"city":"Rome","days":3}}}`)
	handler := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}
	newObserver := func() *obs.Observer {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
		return obs.New(obs.WithTracerProvider(tp), obs.WithMeterProvider(mp),
			obs.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))
	}
	discard := slog.New(slog.NewJSONHandler(io.Discard, nil))
	mcpgoObs := newObserver()
	ours := newObserver()
	servers := []struct {
		name string
		opts []server.ServerOption
	}{
		{"bare", nil},
		{"mcpgo_recovery_tracer_logger", []server.ServerOption{
			server.WithRecovery(), server.WithTracer(mcpgo.Tracer(wrap.New(obstest.WithObserver(mcpgoObs)))), server.WithLogger(discard)}},
		{"mcpwrap_observe", []server.ServerOption{attached(wrap.New(obstest.WithObserver(ours)))}},
		{"mcpwrap_no_telemetry", []server.ServerOption{attached(wrap.New())}},
	}
	for _, sv := range servers {
		s := server.NewMCPServer("bench", "1.0.0", sv.opts...)
		s.AddTool(mcp.NewTool("bench"), handler)
		b.Run(sv.name, func(b *testing.B) { testserver.BenchCall(b, s, msg) })
	}
}

// BenchmarkObserverPerCall is the observer's own cost around one handler
// call (span, metrics, log line), without mcp-go's dispatch.
func BenchmarkObserverPerCall(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	o := obs.New(obs.WithTracerProvider(tp), obs.WithMeterProvider(mp),
		obs.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))
	h := mcpgo.Tool(wrap.New(), mcp.NewTool("bench"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}, obstest.WithObserver(o)).Handler
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "bench", Arguments: map[string]any{"city": "Rome", "days": 3}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := h(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

// boundedInputs are the sizes BenchmarkBoundedCost and
// TestCostIsFlatPastTheCaps feed: below, at and far past the caps.
var boundedInputs = []struct {
	name string
	size int
}{{"1KiB", 1 << 10}, {"64KiB", 64 << 10}, {"1MiB", 1 << 20}, {"4MiB", 4 << 20}}

// boundedCall observes one failed call whose argument and cause are n
// bytes of text holding a secret-shaped pair, the way mcp-go hands them
// over (decoded and raw), with a recording span and a JSON log line.
func boundedCall(o *obs.Observer, n int) func() {
	big := strings.Repeat("lorem ipsum password=hunter2 ", n/29+1)[:n]
	raw, _ := json.Marshal(map[string]any{"content": big})
	req := &call.Request{Kind: call.Tool, Name: "write", Args: map[string]any{"content": big}, Raw: raw}
	cause := errs.Wrap(errs.Unavailable, errors.New("upstream said: "+big), "")
	return func() {
		ctx, rec := o.Start(context.Background(), req, "c1")
		rec.End(ctx, obs.Report{Outcome: obs.CodeOutcome(errs.Unavailable), Attempts: 1, Err: cause})
	}
}

func boundedObserver() *obs.Observer {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(tracetest.NewNoopExporter()))
	return obs.New(obs.WithTracerProvider(tp), obs.WithoutMetrics(), obs.WithArgumentsAttribute(true),
		obs.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))
}

// BenchmarkBoundedCost shows the cost of observing a call stays flat as its
// argument and cause grow past the caps: compare ns/op and B/op across
// sizes in one run.
func BenchmarkBoundedCost(b *testing.B) {
	o := boundedObserver()
	for _, in := range boundedInputs {
		b.Run(in.name, func(b *testing.B) {
			call := boundedCall(o, in.size)
			b.ReportAllocs()
			for b.Loop() {
				call()
			}
		})
	}
}

// BenchmarkPublic: what scrubbing a failed call's error text costs (only
// failed calls with a plain error pay it), for go-github's 404, a short
// text with nothing to replace, and a 2 MiB text (bounded by the 3 KiB
// kept).
func BenchmarkPublic(b *testing.B) {
	r := redact.NewRedactor()
	for name, s := range map[string]string{
		"github_404": "failed to get issue: GET http://10.0.0.7:8080/api/v3/repos/o/r/issues/1: 404 Not Found []",
		"plain":      "quota exhausted for this session",
		"2MiB":       "GET /search?q=" + strings.Repeat("q", 2<<20) + ": connection refused",
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r.Public(s, nil)
			}
		})
	}
}

// BenchmarkBufferedLogger is a log line through NewLogger WithLogBuffer:
// at INFO it is handed to the flushing goroutine (the caller's path copies
// it, and allocates nothing), at ERROR it is written through.
func BenchmarkBufferedLogger(b *testing.B) {
	l := obs.NewLogger(obs.WithLogOutput(io.Discard), obs.WithLogFormat("json"), obs.WithLogBuffer())
	ctx := context.Background()
	for _, lvl := range []slog.Level{slog.LevelInfo, slog.LevelError} {
		b.Run(lvl.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				l.LogAttrs(ctx, lvl, "tool call", slog.String("tool", "get_forecast"), slog.Int64("duration_ms", 12))
			}
		})
	}
	if err := obs.FlushLogger(l); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkCallLine is a call's log line written by a handler: the
// default logger (NewLogger, JSON) beside slog.NewJSONHandler, both to
// io.Discard, the record built once.
//
//	go test -run '^$' -bench CallLine -benchmem ./internal/obs/
func BenchmarkCallLine(b *testing.B) {
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "tool call", 0)
	r.AddAttrs(slog.String("tool", "forecast"), slog.String("call_id", "79806d44bddfa26f"),
		slog.String("outcome", "success"), slog.Float64("duration_ms", 0.437), slog.Int("attempts", 1),
		slog.String("request_id", "1"), slog.String("session_id", "bench-session"),
		slog.Any("arguments", json.RawMessage(`{"city":"<string, 5 bytes>","days":"<number>","hourly":"<bool>","lat":"<number>","lon":"<number>","units":"<string, 6 bytes>"}`)),
		slog.String("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"), slog.String("span_id", "00f067aa0ba902b7"))
	ctx := context.Background()
	for _, h := range []struct {
		name string
		h    slog.Handler
	}{
		{"json_handler", slog.NewJSONHandler(io.Discard, nil)},
		{"new_logger", obs.NewLogger(obs.WithLogOutput(io.Discard), obs.WithLogFormat("json")).Handler()},
	} {
		b.Run(h.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := h.h.Handle(ctx, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkObserve is the observer's own cost for one call (Start and
// End, a JSON line through slog.NewJSONHandler to io.Discard) by form:
// log only; a span the sampler drops (sdktrace.NeverSample standing for
// the nine calls in ten ParentBased(TraceIDRatioBased(0.1)) drops); a
// caller's span that was not sampled (traceparent flags 00 in _meta); a
// recorded span; each with the duration metric but log only.
//
//	go test -run '^$' -bench Observe -benchmem ./internal/obs/
func BenchmarkObserve(b *testing.B) {
	args := map[string]any{"city": "Paris", "days": 3.0, "units": "metric", "lat": 48.85, "lon": 2.35, "hourly": true}
	raw, _ := json.Marshal(args)
	req := call.Request{Kind: call.Tool, Name: "forecast", Args: args, Raw: raw, RequestID: "1", Session: "bench-session"}
	meta := map[string]any{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	forms := []struct {
		name string
		o    *obs.Observer
		meta map[string]any
	}{
		{"log_only", obs.New(obs.WithLogger(logger), obs.WithoutTracing(), obs.WithoutMetrics()), nil},
		{"log_only_newlogger", obs.New(obs.WithLogger(obs.NewLogger(obs.WithLogOutput(io.Discard), obs.WithLogFormat("json"))),
			obs.WithoutTracing(), obs.WithoutMetrics()), nil},
		{"dropped", obs.New(obs.WithLogger(logger), obs.WithMeterProvider(mp),
			obs.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample())))), nil},
		{"unsampled_parent", obs.New(obs.WithLogger(logger), obs.WithMeterProvider(mp),
			obs.WithTracerProvider(sdktrace.NewTracerProvider())), meta},
		{"recorded", obs.New(obs.WithLogger(logger), obs.WithMeterProvider(mp),
			obs.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sdktrace.NewSimpleSpanProcessor(tracetest.NewNoopExporter()))))), nil},
	}
	for _, f := range forms {
		r := req
		r.Meta = f.meta
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ctx, rec := f.o.Start(context.Background(), &r, "79806d44bddfa26f")
				rec.End(ctx, obs.Report{Outcome: obs.OutcomeSuccess, Attempts: 1})
			}
		})
	}
}

// BenchmarkChosenCallID is a call as the chain observes it, Start choosing
// the call id (wrap passes ""), its line through NewLogger to io.Discard:
// log only, and with a recorded span, whose trace and span ids the line
// carries. It measures what choosing the id and writing the ids cost.
//
//	go test -run '^$' -bench '^BenchmarkChosenCallID$' -benchmem ./internal/obs/
func BenchmarkChosenCallID(b *testing.B) {
	args := map[string]any{"city": "Paris", "days": 3.0, "units": "metric"}
	raw, _ := json.Marshal(args)
	req := call.Request{Kind: call.Tool, Name: "forecast", Args: args, Raw: raw, RequestID: "1", Session: "bench-session"}
	logger := obs.NewLogger(obs.WithLogOutput(io.Discard), obs.WithLogFormat("json"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sdktrace.NewSimpleSpanProcessor(tracetest.NewNoopExporter())))
	for _, f := range []struct {
		name string
		o    *obs.Observer
	}{
		{"log_only", obs.New(obs.WithLogger(logger), obs.WithoutTracing(), obs.WithoutMetrics())},
		{"recorded", obs.New(obs.WithLogger(logger), obs.WithTracerProvider(tp), obs.WithoutMetrics())},
	} {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ctx, rec := f.o.Start(context.Background(), &req, "")
				rec.End(ctx, obs.Report{Outcome: obs.OutcomeSuccess, Attempts: 1})
			}
		})
	}
}
