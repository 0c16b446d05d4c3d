package redislimit

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// Logger routes go-redis's own log lines into a *slog.Logger. go-redis
// otherwise prints plain text to stderr ("redis: connection pool: failed to
// dial after 1 attempts: ...") about once per failed dial during an
// outage, which breaks a log of one JSON object per line. Install it with
// redis.SetLogger, once, in main, before any client is made:
//
//	redis.SetLogger(redislimit.NewLogger(logger))
//
// redis.SetLogger is process-global: every go-redis client of the process
// logs through it, not only the store's, and a later call replaces it.
// That is why this package never calls it itself. A Logger is safe for
// concurrent use.
type Logger struct {
	l *slog.Logger
}

// NewLogger returns a Logger writing to l (slog.Default() if nil). Each
// go-redis line becomes one record at slog.LevelDebug with the attribute
// "logger": "go-redis": the Limiter already logs an outage of the store
// once, with its fail mode, so go-redis's line per failed dial is detail
// for debugging, not news.
func NewLogger(l *slog.Logger) *Logger {
	if l == nil {
		l = slog.Default()
	}
	return &Logger{l: l}
}

// Printf logs one go-redis line; it implements go-redis's logging
// interface.
func (g *Logger) Printf(ctx context.Context, format string, v ...any) {
	if !g.l.Enabled(ctx, slog.LevelDebug) {
		return
	}
	msg := strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: ")
	g.l.LogAttrs(ctx, slog.LevelDebug, msg, slog.String("logger", "go-redis"))
}
