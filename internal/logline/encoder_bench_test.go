package logline

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/semconv"
)

// callLine is a call's line as the observer hands it to a handler: its
// attributes, the arguments (by name) as JSON last but the trace ids.
func callLine(args any) []slog.Attr {
	return []slog.Attr{slog.String(semconv.KeyTool, "forecast"),
		slog.String(semconv.KeyCallID, "79806d44bddfa26f"), slog.String(semconv.KeyOutcome, "success"),
		slog.Float64(semconv.KeyDurationMS, 0.437), slog.Int(semconv.KeyAttempts, 1),
		slog.String(semconv.KeyRequestID, "1"), slog.String(semconv.KeySessionID, "bench-session"),
		slog.Any(semconv.KeyArguments, args),
		slog.String(semconv.KeyTraceID, "4bf92f3577b34da6a3ce929d0e0e4736"), slog.String(semconv.KeySpanID, "00f067aa0ba902b7")}
}

const benchArgs = `{"city":"<string, 5 bytes>","days":"<number>","hourly":"<bool>","lat":"<number>","lon":"<number>","units":"<string, 6 bytes>"}`

// BenchmarkEncoder decides whether jsonLine pays for itself: one call's
// line, as the observer writes it (HandleAttrs first, else a record built
// and handed to Handle), through New's handler with its encoder
// ("encoder"), through the same handler without it, every line going to
// its slog.JSONHandler ("json_handler", what New would be without
// jsonLine), and through a bare slog.JSONHandler ("bare_json_handler").
// All write the same bytes, to io.Discard; the setup checks that.
//
//	go test -run '^$' -bench '^BenchmarkEncoder$' -benchmem -count 5 ./internal/logline/
func BenchmarkEncoder(b *testing.B) {
	compact := CompactJSON(benchArgs)
	ours := New(Config{Output: io.Discard, Format: "json"}).Handler().(*handler)
	withoutEncoder := &handler{inner: ours.inner, shared: ours.shared}
	forms := []struct {
		name  string
		h     slog.Handler
		attrs []slog.Attr
	}{
		{"encoder", ours, callLine(&compact)},
		{"json_handler", withoutEncoder, callLine(json.RawMessage(benchArgs))},
		{"bare_json_handler", slog.NewJSONHandler(io.Discard, nil), callLine(json.RawMessage(benchArgs))},
	}
	ctx := context.Background()
	now := time.Now()
	write := func(h slog.Handler, attrs []slog.Attr) {
		if HandleAttrs(h, now, slog.LevelInfo, semconv.MsgToolCall, attrs) {
			return
		}
		r := slog.NewRecord(now, slog.LevelInfo, semconv.MsgToolCall, 0)
		r.AddAttrs(attrs...)
		if err := h.Handle(ctx, r); err != nil {
			b.Fatal(err)
		}
	}
	var first []byte
	for _, f := range forms {
		var buf bytes.Buffer
		h := New(Config{Output: &buf, Format: "json"}).Handler().(*handler)
		switch f.name {
		case "json_handler":
			h = &handler{inner: h.inner, shared: h.shared}
		case "bare_json_handler":
			write(slog.NewJSONHandler(&buf, nil), f.attrs)
			h = nil
		}
		if h != nil {
			write(h, f.attrs)
		}
		if first == nil {
			first = buf.Bytes()
		} else if !bytes.Equal(buf.Bytes(), first) {
			b.Fatalf("%s wrote\n%s\nencoder\n%s", f.name, buf.Bytes(), first)
		}
	}
	for _, f := range forms {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				write(f.h, f.attrs)
			}
		})
	}
}
