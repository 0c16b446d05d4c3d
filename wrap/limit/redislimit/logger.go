package redislimit

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/redis/go-redis/v9"
)

// SetLogger routes go-redis's own log lines into l (slog.Default() if nil).
// go-redis otherwise prints plain text to stderr ("redis: connection pool:
// failed to dial after 1 attempts: ...") about once per failed dial during
// an outage, which breaks a log of one JSON object per line. Call it once,
// in main, before any client is made:
//
//	redislimit.SetLogger(logger)
//
// It calls redis.SetLogger, which is process-global: every go-redis client
// of the process logs through it, not only the store's, and a later call
// replaces it. That is why Store never calls it itself. Each go-redis line
// becomes one record at slog.LevelDebug with the attribute "logger":
// "go-redis": the Limiter already logs an outage of the store once, with
// its fail mode, so go-redis's line per failed dial is detail for
// debugging, not news.
func SetLogger(l *slog.Logger) {
	redis.SetLogger(newLogger(l))
}

// logger implements go-redis's logging interface over a *slog.Logger; it
// is safe for concurrent use.
type logger struct {
	l *slog.Logger
}

func newLogger(l *slog.Logger) *logger {
	if l == nil {
		l = slog.Default()
	}
	return &logger{l: l}
}

// Printf logs one go-redis line.
func (g *logger) Printf(ctx context.Context, format string, v ...any) {
	if !g.l.Enabled(ctx, slog.LevelDebug) {
		return
	}
	msg := strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: ")
	g.l.LogAttrs(ctx, slog.LevelDebug, msg, slog.String("logger", "go-redis"))
}
