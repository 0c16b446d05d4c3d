package obs_test

import (
	"context"
	"slices"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
)

// keepingSampler records the attributes each span starts with and decides
// as decide says.
type keepingSampler struct {
	decide sdktrace.SamplingDecision
	seen   [][]attribute.KeyValue
}

func (s *keepingSampler) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	s.seen = append(s.seen, slices.Clone(p.Attributes))
	return sdktrace.SamplingResult{Decision: s.decide, Tracestate: trace.SpanContextFromContext(p.ParentContext).TraceState()}
}

func (s *keepingSampler) Description() string { return "keeping" }

func keys(kv []attribute.KeyValue) []string {
	var out []string
	for _, a := range kv {
		out = append(out, string(a.Key))
	}
	slices.Sort(out)
	return out
}

// TestSamplerSeesTheSamplingRelevantAttributes: a sampler is given the
// attributes that name the request (startAttrs) at the span's start, and
// a recorded span still ends with every attribute; a dropped span is never
// handed the others.
func TestSamplerSeesTheSamplingRelevantAttributes(t *testing.T) {
	req := &call.Request{Kind: call.Tool, Name: "forecast", RequestID: "7", Session: "s-1", Protocol: "2025-06-18",
		Args: map[string]any{"city": "Paris"}, Raw: []byte(`{"city":"Paris"}`)}
	wantStart := []string{semconv.AttrToolName, semconv.AttrRequestID, semconv.AttrSessionID, semconv.AttrMethodName}
	slices.Sort(wantStart)
	for _, tc := range []struct {
		name   string
		decide sdktrace.SamplingDecision
	}{{"recorded", sdktrace.RecordAndSample}, {"dropped", sdktrace.Drop}} {
		t.Run(tc.name, func(t *testing.T) {
			s := &keepingSampler{decide: tc.decide}
			rec := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(s), sdktrace.WithSpanProcessor(rec))
			o := obs.New(obs.WithTracerProvider(tp), obs.WithoutMetrics(), obs.WithArgumentsAttribute(true))
			ctx, r := o.Start(context.Background(), req, "c1")
			if got := trace.SpanFromContext(ctx).IsRecording(); got != (tc.decide == sdktrace.RecordAndSample) {
				t.Fatalf("span recording = %v", got)
			}
			r.End(ctx, obs.Report{Outcome: obs.OutcomeSuccess, Attempts: 1})
			if len(s.seen) != 1 || !slices.Equal(keys(s.seen[0]), wantStart) {
				t.Fatalf("sampler saw %v, want %v", s.seen, wantStart)
			}
			ended := rec.Ended()
			if tc.decide == sdktrace.Drop {
				if len(ended) != 0 {
					t.Fatalf("%d spans recorded", len(ended))
				}
				return
			}
			if len(ended) != 1 {
				t.Fatalf("%d spans recorded", len(ended))
			}
			got := map[attribute.Key]string{}
			for _, a := range ended[0].Attributes() {
				got[a.Key] = a.Value.Emit()
			}
			for k, v := range map[string]string{
				semconv.AttrMethodName: semconv.MethodToolsCall, semconv.AttrToolName: "forecast",
				semconv.AttrOperationName: semconv.OperationExecuteTool, semconv.AttrNetworkTransport: semconv.TransportPipe,
				semconv.AttrCallID: "c1", semconv.AttrRequestID: "7", semconv.AttrSessionID: "s-1",
				semconv.AttrProtocolVersion: "2025-06-18", semconv.AttrToolArguments: `{"city":"<string, 5 bytes>"}`,
				semconv.AttrOutcome: "success", semconv.AttrAttempts: "1",
			} {
				if got[attribute.Key(k)] != v {
					t.Errorf("%s = %q, want %q", k, got[attribute.Key(k)], v)
				}
			}
		})
	}
}
