package wrap_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/internal/testserver"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
	"github.com/mcpwrap/mcpwrap/wrap/process"
)

func okTool(name string) server.ServerTool {
	return server.ServerTool{Tool: mcp.NewTool(name), Handler: func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText("ok"), nil
	}}
}

// TestTelemetryOptionsReachTheSpanMetricAndLine: the options a user sets
// once — the logger and the redaction on wrap, the providers and the span
// attributes through wrap.WithTelemetry — give one call its line, its span
// with the arguments attribute (values for the tool WithArgumentValues
// names, the secret redacted) and its duration point.
func TestTelemetryOptionsReachTheSpanMetricAndLine(t *testing.T) {
	var logs logbuf.Buffer
	spans := tracetest.NewSpanRecorder()
	reader := sdkmetric.NewManualReader()
	w := wrap.New(wrap.WithLogger(logs.Logger()), wrap.WithSecrets("pin"), wrap.ForTool("login", wrap.WithArgumentValues()),
		wrap.WithTelemetry(observe.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))),
			observe.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))),
		wrap.WithTelemetry(observe.WithArgumentsAttribute(true)))
	s := server.NewMCPServer("bank", "1.0.0")
	mcpgo.Attach(s, w)
	s.AddTools(okTool("login"))
	testserver.StartHTTP(t, s).CallRaw(t, "login", `{"user":"ada","pin":"7391"}`)

	lines, _ := logs.Find("tool", "login")
	if len(lines) != 1 {
		t.Fatalf("%d lines: %s", len(lines), logs.String())
	}
	if got := toJSON(lines[0]["arguments"]); !strings.Contains(got, `"user":"ada"`) || strings.Contains(got, "7391") {
		t.Fatalf("arguments on the line %s: want the values, the pin redacted", got)
	}
	var found bool
	for _, sp := range spans.Ended() {
		if sp.Name() != "tools/call login" {
			continue
		}
		found = true
		var args string
		for _, a := range sp.Attributes() {
			if a.Key == "gen_ai.tool.call.arguments" {
				args = a.Value.AsString()
			}
		}
		if !strings.Contains(args, `"user":"ada"`) || strings.Contains(args, "7391") {
			t.Fatalf("gen_ai.tool.call.arguments %q: want the values, the pin redacted", args)
		}
	}
	if !found {
		t.Fatal("no span tools/call login")
	}
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(t.Context(), &rm); err != nil {
		t.Fatal(err)
	}
	if n := durationCount(rm, "login"); n != 1 {
		t.Fatalf("%d duration points for login, want 1", n)
	}
}

func durationCount(rm metricdata.ResourceMetrics, tool string) uint64 {
	var n uint64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			h, ok := m.Data.(metricdata.Histogram[float64])
			if m.Name != "mcp.server.operation.duration" || !ok {
				continue
			}
			for _, p := range h.DataPoints {
				if v, _ := p.Attributes.Value(attribute.Key("gen_ai.tool.name")); v.AsString() == tool {
					n += p.Count
				}
			}
		}
	}
	return n
}

// TestLoggerAloneStartsNoSpans: WithLogger is the log line alone, even with
// a global tracer provider installed; WithTelemetry() with no options uses
// that global provider.
func TestLoggerAloneStartsNoSpans(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans)))
	defer otel.SetTracerProvider(prev)
	for _, c := range []struct {
		name  string
		opts  []wrap.Option
		spans int
	}{
		{"logger alone", nil, 0},
		{"telemetry on", []wrap.Option{wrap.WithTelemetry()}, 1},
		{"telemetry without tracing", []wrap.Option{wrap.WithTelemetry(observe.WithoutTracing())}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var logs logbuf.Buffer
			conn := serve(t, &logs, c.opts, okTool("ping"))
			before := len(spans.Ended())
			conn.CallRaw(t, "ping", `{}`)
			var got int
			for _, sp := range spans.Ended()[before:] {
				if sp.Name() == "tools/call ping" {
					got++
				}
			}
			if got != c.spans {
				t.Fatalf("%d spans, want %d", got, c.spans)
			}
			if lines, _ := logs.Find("tool", "ping"); len(lines) != 1 {
				t.Fatalf("%d lines", len(lines))
			}
		})
	}
}

// TestUpstreamEventLandsOnTheCallSpan: the Wrapper's UpstreamEvent, the
// upstream.EventFunc a Holder is given, adds the event to the span in ctx
// with its attributes redacted like a call's; without telemetry it does
// nothing.
func TestUpstreamEventLandsOnTheCallSpan(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	w := wrap.New(wrap.WithTelemetry(observe.WithTracerProvider(tp), observe.WithoutMetrics()))
	ctx, sp := tp.Tracer("test").Start(t.Context(), "call")
	w.UpstreamEvent(ctx, "upstream.breaker", slog.String("upstream", "geo"), slog.String("token", "s3cr3t-t0ken"))
	sp.End()
	ev := spans.Ended()[0].Events()
	if len(ev) != 1 || ev[0].Name != "upstream.breaker" {
		t.Fatalf("events %+v", ev)
	}
	for _, a := range ev[0].Attributes {
		if strings.Contains(a.Value.Emit(), "s3cr3t") {
			t.Fatalf("the secret attribute reached the span: %s=%s", a.Key, a.Value.Emit())
		}
	}
	wrap.New().UpstreamEvent(ctx, "upstream.dial") // no telemetry: nothing, and no panic
}

// TestFatalExitFlushesTheProviders: the stop flushes what the telemetry
// providers hold (here a batcher that would otherwise wait a minute), so
// the failed call's span leaves before the process does without a hook.
func TestFatalExitFlushesTheProviders(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(time.Minute)))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	exited := make(chan int, 1)
	var logs logbuf.Buffer
	conn := serve(t, &logs, []wrap.Option{
		wrap.WithTelemetry(observe.WithTracerProvider(tp), observe.WithoutMetrics()),
		wrap.WithFatalExit(process.FatalExit{Grace: time.Millisecond, Exit: func(code int) { exited <- code }}),
	}, fatalTool())
	if res, err := conn.Call(t.Context(), "reload_config", nil); err != nil || !res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("no exit")
	}
	for _, sp := range exp.GetSpans() {
		if sp.Name == "tools/call reload_config" {
			return
		}
	}
	t.Fatalf("the fatal call's span was not flushed before the exit: %d spans exported", len(exp.GetSpans()))
}
