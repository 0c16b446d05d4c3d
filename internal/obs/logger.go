package obs

import (
	"io"
	"log/slog"
	"os"

	"github.com/mcpwrap/mcpwrap/internal/logline"
)

// LoggerOption configures NewLogger.
type LoggerOption func(*LoggerConfig)

// LoggerConfig is what the logger options set; exported for observe's
// LoggerOption, as Config is.
type LoggerConfig struct {
	c logline.Config
}

// WithLogOutput sets where lines go (os.Stderr by default: on stdio
// servers stdout carries the protocol).
func WithLogOutput(w io.Writer) LoggerOption { return func(c *LoggerConfig) { c.c.Output = w } }

// WithLogFormat forces "json" or "text" (colour, via tint), overriding
// logline.EnvLogFormat and the terminal check.
func WithLogFormat(f string) LoggerOption { return func(c *LoggerConfig) { c.c.Format = f } }

// WithLogLevel sets the level, overriding logline.EnvLogLevel.
func WithLogLevel(l slog.Leveler) LoggerOption { return func(c *LoggerConfig) { c.c.Level = l } }

// WithLogBuffer bounds how long a write below ERROR can hold the caller:
// lines are collected in memory and written out by another goroutine at
// once, or, while it is writing, together right after, and the caller
// waits for its line's write up to 100 ms, so the line is on the output
// before the call is answered. A slow output (a write that waited for the
// reader) or one that took longer than that makes later lines not wait
// until a write is quick again: a stuck stderr costs one call 100 ms at
// most. Past 4 MiB unwritten, lines are dropped and the next write says
// how many. A line
// at ERROR or above is written through, after the lines held before it,
// before the call that logs it returns, so an error the process exits on
// is never lost. A line that waited in vain may still be held when the
// process ends unless FlushLogger writes it out first: the adapters'
// ServeStdio does when the client closes stdin and on SIGTERM or SIGINT,
// wrap's fatal exit does before it exits; a main that serves otherwise
// defers FlushLogger (and returns rather than calling os.Exit). Meant for
// stdio servers, where a stuck stderr reader would otherwise stop every
// call.
func WithLogBuffer() LoggerOption { return func(c *LoggerConfig) { c.c.Buffer = true } }

// NewLogger returns the logger to give to WithLogger, writing to stderr
// (WithLogOutput changes that; on a stdio server stdout carries the
// protocol): logline.New's JSON lines when the output is not a terminal,
// tint's coloured text when it is. Level and format come from
// logline.EnvLogLevel and logline.EnvLogFormat unless set by options.
func NewLogger(opts ...LoggerOption) *slog.Logger {
	c := LoggerConfig{c: logline.Config{Output: os.Stderr}}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return logline.New(c.c)
}

// FlushLogger writes out the lines that a NewLogger built WithLogBuffer
// holds, and waits until they are written; for any other logger (nil
// included) it does nothing. It is safe to call at any time, and more than
// once:
//
//	logger := observe.NewLogger(observe.WithLogBuffer())
//	defer observe.FlushLogger(logger)
func FlushLogger(l *slog.Logger) error { return logline.Flush(l) }
