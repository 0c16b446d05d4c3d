package observe

import (
	"io"
	"log/slog"

	"github.com/mcpwrap/mcpwrap/internal/obs"
)

// LoggerOption configures NewLogger.
type LoggerOption func(*obs.LoggerConfig)

// NewLogger returns a logger to give to wrap.WithLogger, writing to stderr
// (WithLogOutput changes that; on a stdio server stdout carries the
// protocol): JSON lines, the bytes slog.JSONHandler writes, written
// without an allocation at INFO, when the output is not a terminal — in
// production and under a process manager — and tint's
// coloured text when it is, where a panic's stack is printed on its own
// indented lines. Unless options set them, the level comes from
// MCPWRAP_LOG_LEVEL (debug, info, warn or error, slog's names, offsets
// such as "warn+2" allowed; info by default) and the format from
// MCPWRAP_LOG_FORMAT (json or text; json unless the output is a terminal).
func NewLogger(opts ...LoggerOption) *slog.Logger {
	in := make([]obs.LoggerOption, len(opts))
	for i, o := range opts {
		in[i] = obs.LoggerOption(o)
	}
	return obs.NewLogger(in...)
}

// WithLogOutput sets where lines go (os.Stderr by default: on stdio
// servers stdout carries the protocol).
func WithLogOutput(w io.Writer) LoggerOption { return LoggerOption(obs.WithLogOutput(w)) }

// WithLogFormat forces "json" or "text" (colour, via tint), overriding
// MCPWRAP_LOG_FORMAT and the terminal check.
func WithLogFormat(f string) LoggerOption { return LoggerOption(obs.WithLogFormat(f)) }

// WithLogLevel sets the level, overriding MCPWRAP_LOG_LEVEL.
func WithLogLevel(l slog.Leveler) LoggerOption { return LoggerOption(obs.WithLogLevel(l)) }

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
func WithLogBuffer() LoggerOption { return LoggerOption(obs.WithLogBuffer()) }

// FlushLogger writes out the lines that a NewLogger built WithLogBuffer
// holds, and waits until they are written; for any other logger (nil
// included) it does nothing. It is safe to call at any time, and more than
// once:
//
//	logger := observe.NewLogger(observe.WithLogBuffer())
//	defer observe.FlushLogger(logger)
func FlushLogger(l *slog.Logger) error { return obs.FlushLogger(l) }
