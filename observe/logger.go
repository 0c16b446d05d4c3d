package observe

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lmittmann/tint"
	"golang.org/x/term"

	"github.com/mcpwrap/mcpwrap/internal/semconv"
)

// Environment variables read by NewLogger.
const (
	// EnvLogLevel sets the level: debug, info, warn or error (slog's names,
	// with offsets such as "warn+2" allowed). The default is info.
	EnvLogLevel = "MCPWRAP_LOG_LEVEL"
	// EnvLogFormat forces the format: json or text. The default is json
	// unless the output is a terminal.
	EnvLogFormat = "MCPWRAP_LOG_FORMAT"
)

// LoggerOption configures NewLogger.
type LoggerOption func(*loggerConfig)

type loggerConfig struct {
	w      io.Writer
	format string
	level  slog.Leveler
	buffer bool
}

// WithLogOutput sets where lines go (os.Stderr by default: on stdio
// servers stdout carries the protocol).
func WithLogOutput(w io.Writer) LoggerOption { return func(c *loggerConfig) { c.w = w } }

// WithLogFormat forces "json" or "text" (colour, via tint), overriding
// EnvLogFormat and the terminal check.
func WithLogFormat(f string) LoggerOption { return func(c *loggerConfig) { c.format = f } }

// WithLogLevel sets the level, overriding EnvLogLevel.
func WithLogLevel(l slog.Leveler) LoggerOption { return func(c *loggerConfig) { c.level = l } }

// WithLogBuffer makes writes non-blocking: lines are collected in memory
// and written out every 50 ms, or at once when 32 KiB are held; past 4 MiB
// unwritten, lines are dropped and the next write says how many. What is
// held when the process ends is lost unless FlushLogger writes it out
// first: the adapters' ServeStdio does when the client closes stdin and on
// SIGTERM or SIGINT, wrap's fatal exit does before it exits; a main that
// serves otherwise defers FlushLogger (and returns rather than calling
// os.Exit or log.Fatal). Meant for stdio servers, where a slow stderr
// reader would otherwise slow every call.
func WithLogBuffer() LoggerOption { return func(c *loggerConfig) { c.buffer = true } }

// NewLogger returns the logger to give to WithLogger, writing to stderr
// (WithLogOutput changes that; on a stdio server stdout carries the
// protocol): JSON lines (slog.JSONHandler) when the output is not a terminal —
// in production and under a process manager — and tint's coloured text
// when it is, where a panic's stack is printed on its own indented lines.
// Level and format come from EnvLogLevel and EnvLogFormat unless set by
// options.
func NewLogger(opts ...LoggerOption) *slog.Logger {
	c := loggerConfig{w: os.Stderr}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.level == nil {
		var lvl slog.Level
		if v := strings.TrimSpace(os.Getenv(EnvLogLevel)); v != "" {
			if err := lvl.UnmarshalText([]byte(v)); err != nil {
				lvl = slog.LevelInfo
			}
		}
		c.level = lvl
	}
	format := c.format
	if format == "" {
		format = strings.ToLower(strings.TrimSpace(os.Getenv(EnvLogFormat)))
	}
	terminal := isTerminal(c.w)
	if format == "" {
		format = "json"
		if terminal {
			format = "text"
		}
	}
	h := &handler{shared: &handlerShared{w: c.w}}
	if c.buffer {
		h.shared.buf = &asyncWriter{w: c.w}
		c.w = h.shared.buf
		h.shared.w = c.w
	}
	if format == "text" {
		h.inner = tint.NewTextHandler(c.w, &tint.Options{Level: c.level, TimeFormat: time.TimeOnly, NoColor: !terminal})
		h.text = true
	} else {
		h.inner = slog.NewJSONHandler(c.w, &slog.HandlerOptions{Level: c.level})
	}
	return slog.New(h)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// handler is NewLogger's handler: it can flush a buffered writer, and in
// text format prints a stack attribute after the line, one frame per line,
// instead of a quoted string full of \n\t.
type handler struct {
	inner  slog.Handler
	text   bool
	shared *handlerShared
}

type handlerShared struct {
	mu  sync.Mutex // keeps a line and its stack together
	w   io.Writer
	buf *asyncWriter
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	return &handler{inner: h.inner.WithAttrs(as), text: h.text, shared: h.shared}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{inner: h.inner.WithGroup(name), text: h.text, shared: h.shared}
}

func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	if !h.text {
		return h.inner.Handle(ctx, r)
	}
	var stack string
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == semconv.KeyStack && a.Value.Kind() == slog.KindString {
			stack = a.Value.String()
			return false
		}
		return true
	})
	if stack == "" {
		return h.inner.Handle(ctx, r)
	}
	line := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if a.Key != semconv.KeyStack {
			line.AddAttrs(a)
		}
		return true
	})
	h.shared.mu.Lock()
	defer h.shared.mu.Unlock()
	if err := h.inner.Handle(ctx, line); err != nil {
		return err
	}
	var b strings.Builder
	for l := range strings.SplitSeq(strings.TrimRight(stack, "\n"), "\n") {
		b.WriteString("    ")
		b.WriteString(safeText(l))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(h.shared.w, b.String())
	return err
}

// FlushLogger writes out the lines that a NewLogger built WithLogBuffer
// holds, and waits until they are written; for any other logger (nil
// included) it does nothing. It is safe to call at any time, and more than
// once:
//
//	logger := observe.NewLogger(observe.WithLogBuffer())
//	defer observe.FlushLogger(logger)
func FlushLogger(l *slog.Logger) error {
	if l == nil {
		return nil
	}
	if f, ok := l.Handler().(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

// Flush writes out the lines a WithLogBuffer logger holds.
func (h *handler) Flush() error {
	if h.shared.buf == nil {
		return nil
	}
	return h.shared.buf.Flush()
}

// Buffer sizes of WithLogBuffer.
const (
	logFlushInterval = 50 * time.Millisecond
	logBufferBytes   = 32 << 10
	logBufferMax     = 4 << 20
)

// asyncWriter collects writes and hands them to w later, off the caller's
// path; Flush writes what it holds now.
type asyncWriter struct {
	w io.Writer

	mu        sync.Mutex
	pending   []byte
	scheduled bool
	dropped   int

	writeMu sync.Mutex // one write to w at a time, in order
}

func (a *asyncWriter) Write(p []byte) (int, error) {
	a.mu.Lock()
	if len(a.pending)+len(p) > logBufferMax {
		a.dropped++
		a.mu.Unlock()
		return len(p), nil
	}
	if a.dropped > 0 {
		a.pending = append(a.pending, `{"level":"WARN","msg":"log lines dropped: the output is too slow","dropped":`...)
		a.pending = append(a.pending, strconv.Itoa(a.dropped)...)
		a.pending = append(a.pending, "}\n"...)
		a.dropped = 0
	}
	a.pending = append(a.pending, p...)
	if !a.scheduled {
		a.scheduled = true
		if len(a.pending) >= logBufferBytes {
			go func() { _ = a.Flush() }()
		} else {
			time.AfterFunc(logFlushInterval, func() { _ = a.Flush() })
		}
	}
	a.mu.Unlock()
	return len(p), nil
}

// Flush writes out everything written so far.
func (a *asyncWriter) Flush() error {
	a.writeMu.Lock()
	defer a.writeMu.Unlock()
	a.mu.Lock()
	out := a.pending
	a.pending = nil
	a.scheduled = false
	a.mu.Unlock()
	if len(out) == 0 {
		return nil
	}
	_, err := a.w.Write(out)
	return err
}
