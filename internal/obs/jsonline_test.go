package obs_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/obs"
)

// TestCallLineThroughNewLoggerAllocatesNothing: with NewLogger, a call's
// whole line at INFO (its record, the arguments by name, the trace ids,
// the write) costs no allocation over the same call with INFO off; with a
// span too.
func TestCallLineThroughNewLoggerAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops buffers at random under the race detector")
	}
	args := map[string]any{"city": "Paris", "days": 3.0, "units": "metric", "lat": 48.85, "lon": 2.35, "hourly": true}
	raw, _ := json.Marshal(args)
	req := &call.Request{Kind: call.Tool, Name: "forecast", Args: args, Raw: raw, RequestID: "1", Session: "s"}
	for _, tc := range []struct {
		name string
		opts []obs.Option
	}{
		{"log only", []obs.Option{obs.WithoutTracing(), obs.WithoutMetrics()}},
		{"with a span", []obs.Option{obs.WithTracerProvider(sdktrace.NewTracerProvider()), obs.WithoutMetrics()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			perCall := func(level slog.Level) float64 {
				l := obs.NewLogger(obs.WithLogOutput(io.Discard), obs.WithLogFormat("json"), obs.WithLogLevel(level))
				o := obs.New(append([]obs.Option{obs.WithLogger(l)}, tc.opts...)...)
				return testing.AllocsPerRun(500, func() {
					ctx, r := o.Start(context.Background(), req, "79806d44bddfa26f")
					r.End(ctx, obs.Report{Outcome: obs.OutcomeSuccess, Attempts: 1})
				})
			}
			on, off := perCall(slog.LevelInfo), perCall(slog.LevelWarn)
			if on != off {
				t.Fatalf("the line at INFO costs %.1f allocations (%.1f with it, %.1f without), want 0", on-off, on, off)
			}
		})
	}
}
