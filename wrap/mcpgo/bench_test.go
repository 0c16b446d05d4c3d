package mcpgo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/internal/benchmix"
	"github.com/mcpwrap/mcpwrap/internal/benchobs"
	"github.com/mcpwrap/mcpwrap/internal/obstest"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

var forecastCall = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":` +
	benchmix.ArgsJSON + `}}`)

var forecastResult = mcp.NewToolResultText("sunny")

func benchForecast(_ context.Context, _ mcp.CallToolRequest, a benchmix.Args) (*mcp.CallToolResult, error) {
	if a.City == "" {
		return nil, fmt.Errorf("no city")
	}
	return forecastResult, nil
}

// unsampledCall is forecastCall from a caller whose span was not sampled:
// a traceparent with flags 00 in params._meta.
var unsampledCall = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":` + benchobs.UnsampledParent +
	`,"name":"forecast","arguments":` + benchmix.ArgsJSON + `}}`)

// typedForms are the servers of BenchmarkTypedCall, each with the message
// it is sent:
//   - bare: mcp-go with its own typed handler;
//   - wrapped: the wrapped server without telemetry;
//   - observed: the wrapped server with a recorded span, the metric and a
//     JSON line (slog.NewJSONHandler);
//   - telemetry_floor: bare mcp-go with the same telemetry written by hand
//     (what the SDK span, the metric and the slog line cost by themselves,
//     with nothing of mcpwrap);
//   - sampled_out: observed with ParentBased(TraceIDRatioBased(0.1)), so
//     nine root spans in ten are not recorded;
//   - unsampled_parent: observed, called with a traceparent whose flags
//     are 00 in params._meta (the message is 87 bytes longer than bare's);
//   - sampled_out_floor: telemetry_floor on sampled_out's providers;
//   - bare_meta: bare, sent unsampled_parent's message;
//   - log_only: wrap.WithLogger(slog.NewJSONHandler) alone;
//   - log_floor: bare mcp-go with the same JSON line written by hand
//     (slog.NewJSONHandler, constant values), nothing else;
//   - log_newlogger: wrap.WithLogger(observe.NewLogger), JSON, alone;
//   - observed_newlogger, sampled_out_newlogger: observed and sampled_out
//     with observe.NewLogger's JSON lines instead of slog.NewJSONHandler's.
func typedForms(b *testing.B) ([]string, []*server.MCPServer, [][]byte) {
	names := []string{"bare", "wrapped", "observed", "telemetry_floor", "sampled_out", "sampled_out_floor", "unsampled_parent",
		"bare_meta", "log_only", "log_floor", "log_newlogger", "observed_newlogger", "sampled_out_newlogger"}
	msgs := [][]byte{forecastCall, forecastCall, forecastCall, forecastCall, forecastCall, forecastCall, unsampledCall,
		unsampledCall, forecastCall, forecastCall, forecastCall, forecastCall, forecastCall}
	newBare, typed := bareForecast, typedForecast
	servers := []*server.MCPServer{newBare()}
	servers = append(servers, typed(wrap.New()), typed(wrap.New(obstest.WithObserver(benchobs.Observer(b)))))
	floor := server.NewMCPServer("bench", "1.0.0", server.WithToolHandlerMiddleware(handWrittenTelemetry(b)))
	floor.AddTool(mcp.NewTool("forecast"), mcp.NewTypedToolHandler(benchForecast))
	sampledFloor := server.NewMCPServer("bench", "1.0.0", server.WithToolHandlerMiddleware(handWrittenTelemetry(b, benchobs.SampledOut())))
	sampledFloor.AddTool(mcp.NewTool("forecast"), mcp.NewTypedToolHandler(benchForecast))
	servers = append(servers, floor,
		typed(wrap.New(obstest.WithObserver(benchobs.Observer(b, benchobs.SampledOut())))), sampledFloor,
		typed(wrap.New(obstest.WithObserver(benchobs.Observer(b)))),
		newBare(),
		typed(wrap.New(wrap.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))))
	logFloor := server.NewMCPServer("bench", "1.0.0", server.WithToolHandlerMiddleware(handWrittenLine()))
	logFloor.AddTool(mcp.NewTool("forecast"), mcp.NewTypedToolHandler(benchForecast))
	servers = append(servers, logFloor,
		typed(wrap.New(wrap.WithLogger(observe.NewLogger(observe.WithLogOutput(io.Discard), observe.WithLogFormat("json"))))),
		typed(wrap.New(obstest.WithObserver(benchobs.NewLoggerObserver(b)))),
		typed(wrap.New(obstest.WithObserver(benchobs.NewLoggerObserver(b, benchobs.SampledOut())))))
	return names, servers, msgs
}

// against are the ratios BenchmarkTypedCall reports besides ×bare.
var against = map[string]string{"unsampled_parent": "bare_meta", "observed": "telemetry_floor", "log_only": "log_floor",
	"log_newlogger": "log_floor", "sampled_out": "sampled_out_floor", "observed_newlogger": "telemetry_floor",
	"sampled_out_newlogger": "sampled_out_floor"}

// handWrittenLine is log_only's line written by hand: the same JSON line
// with constant values through slog.NewJSONHandler, no span, no metric.
func handWrittenLine() server.ToolHandlerMiddleware {
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	args := json.RawMessage(`{"city":"<string, 5 bytes>","days":"<number>","hourly":"<bool>","lat":"<number>","lon":"<number>","units":"<string, 6 bytes>"}`)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			begin := time.Now()
			res, err := next(ctx, req)
			d := time.Since(begin)
			logger.LogAttrs(ctx, slog.LevelInfo, semconv.MsgToolCall, slog.String(semconv.KeyTool, req.Params.Name),
				slog.String(semconv.KeyCallID, "79806d44bddfa26f"), slog.String(semconv.KeyOutcome, "success"),
				slog.Float64(semconv.KeyDurationMS, float64(d.Microseconds())/1000), slog.Int(semconv.KeyAttempts, 1),
				slog.String(semconv.KeyRequestID, "1"), slog.String(semconv.KeySessionID, "bench-session"),
				slog.Any(semconv.KeyArguments, args))
			return res, err
		}
	}
}

// handWrittenTelemetry is the least a middleware can do for the same
// telemetry as the observed form: the same span (name, kind, the nine
// attributes), the duration histogram with a set built once, and the same
// JSON log line with constant values, on the same providers and handler.
func handWrittenTelemetry(b *testing.B, opts ...sdktrace.TracerProviderOption) server.ToolHandlerMiddleware {
	tp, mp := benchobs.Providers(b, opts...)
	tracer := tp.Tracer("floor")
	hist, err := mp.Meter("floor").Float64Histogram(semconv.MetricOperationDuration)
	if err != nil {
		b.Fatal(err)
	}
	set := metric.WithAttributeSet(attribute.NewSet(attribute.String(semconv.AttrMethodName, semconv.MethodToolsCall),
		attribute.String(semconv.AttrToolName, "forecast")))
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	kind := trace.WithSpanKind(trace.SpanKindServer)
	args := json.RawMessage(`{"city":"<string, 5 bytes>","days":"<number>","hourly":"<bool>","lat":"<number>","lon":"<number>","units":"<string, 6 bytes>"}`)
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			begin := time.Now()
			ctx, span := tracer.Start(ctx, "tools/call "+req.Params.Name, kind, trace.WithTimestamp(begin), trace.WithAttributes(
				attribute.String(semconv.AttrMethodName, semconv.MethodToolsCall),
				attribute.String(semconv.AttrToolName, req.Params.Name),
				attribute.String(semconv.AttrOperationName, semconv.OperationExecuteTool),
				attribute.String(semconv.AttrNetworkTransport, semconv.TransportPipe),
				attribute.String(semconv.AttrCallID, "79806d44bddfa26f"),
				attribute.String(semconv.AttrRequestID, "1"),
				attribute.String(semconv.AttrSessionID, "bench-session")))
			res, err := next(ctx, req)
			span.SetAttributes(attribute.String(semconv.AttrOutcome, "success"), attribute.Int(semconv.AttrAttempts, 1))
			span.End()
			d := time.Since(begin)
			hist.Record(ctx, d.Seconds(), set)
			sc := span.SpanContext()
			logger.LogAttrs(ctx, slog.LevelInfo, semconv.MsgToolCall, slog.String(semconv.KeyTool, req.Params.Name),
				slog.String(semconv.KeyCallID, "79806d44bddfa26f"), slog.String(semconv.KeyOutcome, "success"),
				slog.Float64(semconv.KeyDurationMS, float64(d.Microseconds())/1000), slog.Int(semconv.KeyAttempts, 1),
				slog.String(semconv.KeyRequestID, "1"), slog.String(semconv.KeySessionID, "bench-session"),
				slog.Any(semconv.KeyArguments, args), slog.String(semconv.KeyTraceID, sc.TraceID().String()),
				slog.String(semconv.KeySpanID, sc.SpanID().String()))
			return res, err
		}
	}
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

func handle(ctx context.Context, s *server.MCPServer) error { return handleMsg(ctx, s, forecastCall) }

func handleMsg(ctx context.Context, s *server.MCPServer, msg []byte) error {
	resp := s.HandleMessage(ctx, msg)
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
// the result) on one session, the forms (typedForms) taking turns call by call:
// it reports each form's median (µs), its overhead over bare (%) and its
// ratio to bare (×bare).
func BenchmarkTypedCall(b *testing.B) {
	names, servers, msgs := typedForms(b)
	ctxs := make([]context.Context, len(servers))
	for i, s := range servers {
		ctxs[i] = sessionContext(b, s, "bench-session")
	}
	benchmix.RunAgainst(b, names, against, func(i int) error { return handleMsg(ctxs[i], servers[i], msgs[i]) })
}

// BenchmarkTypedCallEach is BenchmarkTypedCall one form at a time, for
// the allocations of each and for profiling one form
// (-bench 'TypedCallEach/observed' -cpuprofile).
func BenchmarkTypedCallEach(b *testing.B) {
	names, servers, msgs := typedForms(b)
	for i, name := range names {
		ctx := sessionContext(b, servers[i], "bench-session")
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := handleMsg(ctx, servers[i], msgs[i]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// bareForecast is mcp-go serving the forecast tool with its own typed
// handler.
func bareForecast() *server.MCPServer {
	s := server.NewMCPServer("bench", "1.0.0")
	s.AddTool(mcp.NewTool("forecast"), mcp.NewTypedToolHandler(benchForecast))
	return s
}

// typedForecast is the forecast tool through mcpgo.Typed, attached to w.
func typedForecast(w *wrap.Wrapper) *server.MCPServer {
	s := server.NewMCPServer("bench", "1.0.0", attached(w))
	s.AddTools(mcpgo.Typed(w, mcp.NewTool("forecast"), benchForecast))
	return s
}

// BenchmarkLineShare splits log_newlogger's cost: bare, wrapped,
// log_off (observe.NewLogger at WARN: the call recorded, the request id
// handed over, the line not written) and log_newlogger, taking turns.
func BenchmarkLineShare(b *testing.B) {
	logger := func(level slog.Level) *slog.Logger {
		return observe.NewLogger(observe.WithLogOutput(io.Discard), observe.WithLogFormat("json"), observe.WithLogLevel(level))
	}
	names := []string{"bare", "wrapped", "log_off", "log_newlogger"}
	servers := []*server.MCPServer{bareForecast(), typedForecast(wrap.New()),
		typedForecast(wrap.New(wrap.WithLogger(logger(slog.LevelWarn)))), typedForecast(wrap.New(wrap.WithLogger(logger(slog.LevelInfo))))}
	ctxs := make([]context.Context, len(servers))
	for i, s := range servers {
		ctxs[i] = sessionContext(b, s, "bench-session")
	}
	benchmix.Run(b, names, func(i int) error { return handle(ctxs[i], servers[i]) })
}

// sessions is the number of concurrent sessions of BenchmarkTypedCall64.
const sessions = 64

// BenchmarkTypedCall64 is the throughput of 64 concurrent sessions: one
// round is every session making 4 calls at once on one form, the forms
// taking turns round by round; it reports each form's median round (µs,
// 256 calls), its overhead and ratio to bare.
func BenchmarkTypedCall64(b *testing.B) {
	names, servers, msgs := typedForms(b)
	ctxs := make([][]context.Context, len(servers))
	for i, s := range servers {
		for k := range sessions {
			ctxs[i] = append(ctxs[i], sessionContext(b, s, fmt.Sprintf("session-%d", k)))
		}
	}
	benchmix.RunAgainst(b, names, against, func(i int) error {
		var wg sync.WaitGroup
		errc := make(chan error, sessions)
		for _, ctx := range ctxs[i] {
			wg.Go(func() {
				for range 4 {
					if err := handleMsg(ctx, servers[i], msgs[i]); err != nil {
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

// BenchmarkMiddlewarePerCall is a tool call behind Attach's middleware as
// mcp-go applies it: rebuilt for every call.
func BenchmarkMiddlewarePerCall(b *testing.B) {
	res := mcp.NewToolResultText("ok")
	bare := func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "bench"}}
	mw := mcpgo.Middleware(wrap.New())
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := mw(bare)(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// fieldCounts are the argument counts of BenchmarkFields.
var fieldCounts = []int{1, 10, 100}

// fieldsCall is a tools/call of the untyped tool "fields" with n
// arguments, strings, numbers and booleans in turn.
func fieldsCall(n int) []byte {
	args := make(map[string]any, n)
	for k := range n {
		switch k % 3 {
		case 0:
			args[fmt.Sprintf("field_%03d", k)] = "value of field " + fmt.Sprint(k)
		case 1:
			args[fmt.Sprintf("field_%03d", k)] = k
		default:
			args[fmt.Sprintf("field_%03d", k)] = k%2 == 0
		}
	}
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "fields", "arguments": args}})
	if err != nil {
		panic(err)
	}
	return msg
}

// fieldForms are the servers of BenchmarkFields: an untyped tool reading
// its arguments as a map, bare, wrapped, observed, sampled out and log
// only (the forms of typedForms).
func fieldForms(b *testing.B) ([]string, []*server.MCPServer) {
	names := []string{"bare", "wrapped", "observed", "sampled_out", "log_only"}
	h := func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if len(req.GetArguments()) == 0 {
			return nil, fmt.Errorf("no arguments")
		}
		return forecastResult, nil
	}
	var servers []*server.MCPServer
	for _, w := range []*wrap.Wrapper{nil, wrap.New(), wrap.New(obstest.WithObserver(benchobs.Observer(b))),
		wrap.New(obstest.WithObserver(benchobs.Observer(b, benchobs.SampledOut()))),
		wrap.New(wrap.WithLogger(slog.New(slog.NewJSONHandler(io.Discard, nil))))} {
		var s *server.MCPServer
		if w == nil {
			s = server.NewMCPServer("bench", "1.0.0")
		} else {
			s = server.NewMCPServer("bench", "1.0.0", attached(w))
		}
		s.AddTool(mcp.NewTool("fields"), h)
		servers = append(servers, s)
	}
	return names, servers
}

// BenchmarkFields is the growth of a call's cost with its argument count
// (1, 10, 100 fields): the forms of fieldForms taking turns, each form's
// median and ratio to bare per count.
func BenchmarkFields(b *testing.B) {
	for _, n := range fieldCounts {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			names, servers := fieldForms(b)
			msg := fieldsCall(n)
			ctxs := make([]context.Context, len(servers))
			for i, s := range servers {
				ctxs[i] = sessionContext(b, s, "bench-session")
			}
			benchmix.Run(b, names, func(i int) error { return handleMsg(ctxs[i], servers[i], msg) })
		})
	}
}

// BenchmarkFieldsEach is BenchmarkFields one form at a time, for the
// bytes and allocations per call.
func BenchmarkFieldsEach(b *testing.B) {
	for _, n := range fieldCounts {
		msg := fieldsCall(n)
		names, servers := fieldForms(b)
		for i, name := range names {
			ctx := sessionContext(b, servers[i], "bench-session")
			b.Run(fmt.Sprintf("%d/%s", n, name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := handleMsg(ctx, servers[i], msg); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkTypedCall64Each is BenchmarkTypedCall64 one form at a time
// (one op is a round: 64 sessions making 4 calls each), for the bytes and
// allocations of a round and for profiling one form under concurrency.
func BenchmarkTypedCall64Each(b *testing.B) {
	names, servers, msgs := typedForms(b)
	for i, name := range names {
		var ctxs []context.Context
		for k := range sessions {
			ctxs = append(ctxs, sessionContext(b, servers[i], fmt.Sprintf("session-%d", k)))
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var wg sync.WaitGroup
				for _, ctx := range ctxs {
					wg.Go(func() {
						for range 4 {
							if err := handleMsg(ctx, servers[i], msgs[i]); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
			}
		})
	}
}
