package redislimit

import (
	"context"
	"log/slog"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
)

// TestLoggerWritesOneRecordPerLine: go-redis's lines, routed through
// the logger SetLogger installs, are records of the slog handler at debug level, not text on
// stderr.
func TestLoggerWritesOneRecordPerLine(t *testing.T) {
	var logs logbuf.Buffer
	var goredis interface {
		Printf(ctx context.Context, format string, v ...any)
	} = newLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	goredis.Printf(context.Background(), "redis: connection pool: failed to dial after %d attempts: %v", 1, "connection refused")
	lines, err := logs.Lines()
	if err != nil || len(lines) != 1 {
		t.Fatalf("%d records (%v):\n%s", len(lines), err, logs.String())
	}
	if l := lines[0]; l["level"] != "DEBUG" || l["logger"] != "go-redis" ||
		l["msg"] != "connection pool: failed to dial after 1 attempts: connection refused" {
		t.Fatalf("record %v", l)
	}
}
