package logline_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/logline"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
)

type lineValuer struct{ v slog.Value }

func (v lineValuer) LogValue() slog.Value { return v.v }

type marshaler struct{}

func (marshaler) MarshalJSON() ([]byte, error) { return []byte(`{"m": 1}`), nil }

// TestNewLoggerWritesWhatJSONHandlerWrites: NewLogger's JSON lines, which
// it writes itself, are byte for byte slog.JSONHandler's for the same
// records, down to its escapes, float formats, groups and errors.
func TestNewLoggerWritesWhatJSONHandlerWrites(t *testing.T) {
	when := time.Date(2026, 3, 4, 5, 6, 7, 891011121, time.FixedZone("x", 3600))
	cases := []struct {
		name  string
		msg   string
		level slog.Level
		attrs []slog.Attr
	}{
		{"call line", semconv.MsgToolCall, slog.LevelInfo, []slog.Attr{slog.String("tool", "forecast"),
			slog.String("call_id", "79806d44bddfa26f"), slog.Float64("duration_ms", 0.437), slog.Int("attempts", 1),
			slog.Any("arguments", json.RawMessage(`{"city":"<string, 5 bytes>","days":"<number>"}`)),
			slog.String("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736")}},
		{"escapes", "a \"quoted\"\n\tline\\ <b>&amp;</b>", slog.LevelWarn, []slog.Attr{
			slog.String("k\"ey", "ctl \x01\x1f\x7f é \u2028\u2029 \xff\xfe end"), slog.String("", "empty key")}},
		{"numbers", "n", slog.LevelError + 2, []slog.Attr{slog.Float64("zero", 0), slog.Float64("neg", math.Copysign(0, -1)),
			slog.Float64("tiny", 1e-7), slog.Float64("huge", 1e21), slog.Float64("big", 123456789.125),
			slog.Float64("e-09", 3e-9), slog.Int64("min", math.MinInt64), slog.Uint64("max", math.MaxUint64),
			slog.Bool("t", true), slog.Duration("d", 1500*time.Millisecond), slog.Time("at", when)}},
		{"groups", "g", slog.LevelDebug, []slog.Attr{slog.Group("g", slog.String("a", "1"), slog.Group("h", slog.Int("b", 2))),
			slog.Group("", slog.String("inline", "yes")), slog.Group("empty"), slog.Group("only_empty", slog.Group("e")),
			{}, slog.String("after", "x")}},
		{"raw json", "r", slog.LevelInfo, []slog.Attr{slog.Any("spaced", json.RawMessage(" { \"a\" : [1, 2] ,\n\"b\":\"<x>\" } ")),
			slog.Any("nil", json.RawMessage(nil)), slog.Any("s", json.RawMessage(`"x"`))}},
		{"other values", "o", slog.LevelInfo, []slog.Attr{slog.Any("err", errors.New("boom \"x\"")),
			slog.Any("lineValuer", lineValuer{slog.StringValue("resolved")}), slog.Any("group lineValuer", lineValuer{slog.GroupValue(slog.Int("x", 1))})}},
		// Records jsonLine hands to JSONHandler whole.
		{"invalid raw", "f", slog.LevelInfo, []slog.Attr{slog.String("before", "b"), slog.Any("bad", json.RawMessage(`{"a":`))}},
		{"nan", "f", slog.LevelInfo, []slog.Attr{slog.Float64("nan", math.NaN()), slog.Float64("inf", math.Inf(1))}},
		{"marshaler", "f", slog.LevelInfo, []slog.Attr{slog.Any("m", marshaler{})}},
		{"struct", "f", slog.LevelInfo, []slog.Attr{slog.Any("s", struct{ A int }{1}), slog.Any("map", map[string]int{"a": 1})}},
		{"year 10000", "f", slog.LevelInfo, []slog.Attr{slog.Time("at", when.AddDate(8000, 0, 0))}},
		{"all-empty group", "f", slog.LevelInfo, []slog.Attr{slog.Group("g", slog.Attr{}), slog.String("next", "n")}},
	}
	derive := []struct {
		name string
		f    func(slog.Handler) slog.Handler
	}{
		{"plain", func(h slog.Handler) slog.Handler { return h }},
		{"with attrs", func(h slog.Handler) slog.Handler {
			return h.WithAttrs([]slog.Attr{slog.String("service", "weather"), slog.Float64("ratio", 0.5)}).WithAttrs([]slog.Attr{slog.Int("n", 2)})
		}},
		{"with empty attrs", func(h slog.Handler) slog.Handler { return h.WithAttrs([]slog.Attr{{}, slog.Group("e")}) }},
		{"with group", func(h slog.Handler) slog.Handler {
			return h.WithAttrs([]slog.Attr{slog.String("a", "1")}).WithGroup("call").WithAttrs([]slog.Attr{slog.String("b", "2")})
		}},
	}
	for _, d := range derive {
		for _, tc := range cases {
			t.Run(d.name+"/"+tc.name, func(t *testing.T) {
				var want, got bytes.Buffer
				ref := d.f(slog.NewJSONHandler(&want, &slog.HandlerOptions{Level: slog.LevelDebug}))
				ours := d.f(logline.New(logline.Config{Output: &got, Format: "json", Level: slog.LevelDebug}).Handler())
				for _, tm := range []time.Time{when, {}} {
					r := slog.NewRecord(tm, tc.level, tc.msg, 0)
					r.AddAttrs(tc.attrs...)
					if err := ref.Handle(context.Background(), r); err != nil {
						t.Fatal(err)
					}
					if err := ours.Handle(context.Background(), r); err != nil {
						t.Fatal(err)
					}
				}
				if got.String() != want.String() {
					t.Fatalf("NewLogger wrote\n%s\nJSONHandler\n%s", got.String(), want.String())
				}
			})
		}
	}
}

// TestNewLoggerAllocatesNothingAtInfo guards the default logger's promise:
// its handler writes a call's line at INFO (strings, a float duration, an
// int, the arguments as raw JSON) without an allocation.
func TestNewLoggerAllocatesNothingAtInfo(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops buffers at random under the race detector")
	}
	h := logline.New(logline.Config{Output: io.Discard, Format: "json"}).Handler()
	ctx := context.Background()
	r := slog.NewRecord(time.Now(), slog.LevelInfo, semconv.MsgToolCall, 0)
	r.AddAttrs(slog.String(semconv.KeyTool, "forecast"),
		slog.String(semconv.KeyCallID, "79806d44bddfa26f"), slog.String(semconv.KeyOutcome, "success"),
		slog.Float64(semconv.KeyDurationMS, 0.437), slog.Int(semconv.KeyAttempts, 1),
		slog.String(semconv.KeyRequestID, "1"), slog.String(semconv.KeySessionID, "bench-session"),
		slog.Any(semconv.KeyArguments, json.RawMessage(`{"city":"<string, 5 bytes>","days":"<number>","hourly":"<bool>"}`)),
		slog.String(semconv.KeyTraceID, "4bf92f3577b34da6a3ce929d0e0e4736"), slog.String(semconv.KeySpanID, "00f067aa0ba902b7"))
	allocs := testing.AllocsPerRun(1000, func() {
		if !h.Enabled(ctx, slog.LevelInfo) {
			t.Fatal("INFO disabled")
		}
		if err := h.Handle(ctx, r); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("a line at INFO allocates %.1f times, want 0", allocs)
	}
}

// TestNewLoggerEscapesEveryByteAsJSONHandler: NewLogger's escaping, which
// skips plain text eight bytes at a time, writes what JSONHandler writes
// for every byte value and multi-byte sequence at every offset of a word.
func TestNewLoggerEscapesEveryByteAsJSONHandler(t *testing.T) {
	var want, got bytes.Buffer
	ref := slog.NewJSONHandler(&want, nil)
	ours := logline.New(logline.Config{Output: &got, Format: "json"}).Handler()
	pieces := []string{"\u2028", "\u2029", "é", "\xe2\x80", "\xff", "\U0001F600"}
	for c := range 256 {
		pieces = append(pieces, string([]byte{byte(c)}))
	}
	for _, p := range pieces {
		for at := range 17 {
			s := strings.Repeat("a", at) + p + strings.Repeat("b", 16-at)
			r := slog.NewRecord(time.Time{}, slog.LevelInfo, s, 0)
			r.AddAttrs(slog.String(s, s))
			want.Reset()
			got.Reset()
			if err := ref.Handle(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			if err := ours.Handle(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Fatalf("%q at %d: NewLogger wrote\n%s\nJSONHandler\n%s", p, at, got.String(), want.String())
			}
		}
	}
}
