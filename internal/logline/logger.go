package logline

import (
	"cmp"
	"context"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lmittmann/tint"
	"golang.org/x/term"

	"github.com/mcpwrap/mcpwrap/internal/redact"
	"github.com/mcpwrap/mcpwrap/internal/semconv"
)

// Environment variables read by New.
const (
	// EnvLogLevel sets the level: debug, info, warn or error (slog's names,
	// with offsets such as "warn+2" allowed). The default is info.
	EnvLogLevel = "MCPWRAP_LOG_LEVEL"
	// EnvLogFormat forces the format: json or text. The default is json
	// unless the output is a terminal.
	EnvLogFormat = "MCPWRAP_LOG_FORMAT"
)

// Config is what New builds a logger from.
type Config struct {
	// Output is where lines go; it must not be nil.
	Output io.Writer
	// Format forces "json" or "text" (colour, via tint), overriding
	// EnvLogFormat and the terminal check.
	Format string
	// Level overrides EnvLogLevel.
	Level slog.Leveler
	// Buffer bounds how long a write below ERROR holds the caller (obs.WithLogBuffer says
	// how).
	Buffer bool
}

// New returns a logger writing JSON lines (slog.JSONHandler's bytes,
// written by jsonLine without an allocation) when the output is not a
// terminal (in production and under a process manager) and tint's coloured
// text when it is, where a panic's stack is printed on its own indented
// lines. Level and format come from EnvLogLevel and EnvLogFormat unless c
// sets them.
func New(c Config) *slog.Logger {
	if c.Level == nil {
		c.Level = envLevel()
	}
	terminal := isTerminal(c.Output)
	format := formatOf(c.Format, terminal)
	h := &handler{text: format == "text", shared: &handlerShared{w: c.Output}}
	inner := func(w io.Writer) slog.Handler {
		if format == "text" {
			return tint.NewTextHandler(w, &tint.Options{Level: c.Level, TimeFormat: time.TimeOnly, NoColor: !terminal})
		}
		return slog.NewJSONHandler(lockedWriter{&h.shared.wmu, w}, &slog.HandlerOptions{Level: c.Level})
	}
	if !h.text {
		h.json = &jsonLine{}
	}
	if c.Buffer {
		buf := &asyncWriter{w: c.Output}
		buf.flushFunc = buf.flush // made once: a method value per line allocates
		h.shared.buf, h.shared.w = buf, buf
		h.through = inner((*writeThrough)(buf))
	}
	h.inner = inner(h.shared.w)
	return slog.New(h)
}

// formatOf is the format to write: the configured one, else the one
// EnvLogFormat names, else text on a terminal and JSON elsewhere.
func formatOf(configured string, terminal bool) string {
	format := cmp.Or(configured, strings.ToLower(strings.TrimSpace(os.Getenv(EnvLogFormat))))
	switch {
	case format != "":
		return format
	case terminal:
		return "text"
	}
	return "json"
}

// envLevel is EnvLogLevel's level, info when it is unset or not a level.
func envLevel() slog.Level {
	var lvl slog.Level
	if v := strings.TrimSpace(os.Getenv(EnvLogLevel)); v != "" {
		if err := lvl.UnmarshalText([]byte(v)); err != nil {
			lvl = slog.LevelInfo
		}
	}
	return lvl
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// handler is New's handler: it can flush a buffered writer, writes a
// line at ERROR or above through it (through), in JSON format writes the
// line itself (json) when it can, the bytes inner would, and in text format
// prints a stack attribute after the line, one frame per line, instead of a
// quoted string full of \n\t.
type handler struct {
	inner   slog.Handler
	through slog.Handler // inner writing through the buffer; nil without one
	text    bool
	json    *jsonLine // nil: every line goes to inner (text, or after WithGroup)
	shared  *handlerShared
}

type handlerShared struct {
	mu  sync.Mutex // keeps a line and its stack together
	wmu sync.Mutex // one JSON line written at a time, by json or inner
	w   io.Writer
	buf *asyncWriter
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	c := &handler{inner: h.inner.WithAttrs(as), text: h.text, shared: h.shared}
	if h.json != nil {
		c.json = h.json.withAttrs(as)
	}
	if h.through != nil {
		c.through = h.through.WithAttrs(as)
	}
	return c
}

func (h *handler) WithGroup(name string) slog.Handler {
	c := &handler{inner: h.inner.WithGroup(name), text: h.text, shared: h.shared}
	if h.through != nil {
		c.through = h.through.WithGroup(name)
	}
	return c
}

// WritesJSON reports whether h is a JSON handler of New that writes lines
// itself: one that takes CompactJSON and Appender values as they are.
func WritesJSON(h slog.Handler) bool {
	ours, ok := h.(*handler)
	return ok && ours.json != nil
}

// HandleAttrs writes, when h is a handler of New that can, the line of a
// record with time t, level, msg and attrs, without making the record
// (which allocates past five attributes); handled is false when it did
// not, and the caller hands h the record instead.
func HandleAttrs(h slog.Handler, t time.Time, level slog.Level, msg string, attrs []slog.Attr) (handled bool) {
	ours, ok := h.(*handler)
	if !ok {
		return false
	}
	handled, _ = ours.handleAttrs(t, level, msg, attrs)
	return handled
}

// handleAttrs writes a line of the given parts, as Handle writes the
// record made of them, without making the record (which allocates past
// five attributes); handled is false when it did not write it, and the
// caller hands Handle the record instead.
func (h *handler) handleAttrs(t time.Time, level slog.Level, msg string, attrs []slog.Attr) (handled bool, err error) {
	if h.json == nil {
		return false, nil
	}
	w := h.shared.w
	if h.through != nil && level >= slog.LevelError {
		w = (*writeThrough)(h.shared.buf)
	}
	defer h.shared.buf.yield()
	return h.json.writeLine(&h.shared.wmu, w, t, level, msg, attrs, nil)
}

func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	defer h.shared.buf.yield()
	inner, w := h.inner, h.shared.w
	if h.through != nil && r.Level >= slog.LevelError {
		// An error may be the last thing the process does before it exits
		// (os.Exit, log.Fatal, a signal it handles itself): the line and
		// what was held before it are written before Handle returns.
		inner, w = h.through, (*writeThrough)(h.shared.buf)
	}
	if !h.text {
		if h.json != nil {
			if ok, err := h.json.write(&h.shared.wmu, w, r); ok {
				return err
			}
		}
		return inner.Handle(ctx, r)
	}
	stack := stackOf(r)
	if stack == "" {
		return inner.Handle(ctx, r)
	}
	h.shared.mu.Lock()
	defer h.shared.mu.Unlock()
	if err := inner.Handle(ctx, withoutStack(r)); err != nil {
		return err
	}
	_, err := io.WriteString(w, indented(stack))
	return err
}

// stackOf is the stack r carries as text, or "".
func stackOf(r slog.Record) (stack string) {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == semconv.KeyStack && a.Value.Kind() == slog.KindString {
			stack = a.Value.String()
			return false
		}
		return true
	})
	return stack
}

// withoutStack is r without its stack, which the text format writes
// after the line.
func withoutStack(r slog.Record) slog.Record {
	line := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if a.Key != semconv.KeyStack {
			line.AddAttrs(a)
		}
		return true
	})
	return line
}

// indented is stack with every line indented and made safe to print.
func indented(stack string) string {
	var b strings.Builder
	for l := range strings.SplitSeq(strings.TrimRight(stack, "\n"), "\n") {
		b.WriteString("    ")
		b.WriteString(redact.SafeText(l))
		b.WriteByte('\n')
	}
	return b.String()
}

// Flush writes out the lines that a logger of New built with Buffer holds,
// and waits until they are written; for any other logger (nil included)
// it does nothing. It is safe to call at any time, and more than once.
func Flush(l *slog.Logger) error {
	if l == nil {
		return nil
	}
	if f, ok := l.Handler().(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

// Flush writes out the lines a logger with Buffer holds.
func (h *handler) Flush() error {
	if h.shared.buf == nil {
		return nil
	}
	return h.shared.buf.Flush()
}

// Buffer sizes of Config.Buffer.
const (
	logBufferMax   = 4 << 20   // held past this, lines are dropped
	logBufferSpare = 128 << 10 // a written buffer up to this size is reused
)

// asyncWriter collects writes and hands them to w later, off the caller's
// path; Flush writes what it holds now.
type asyncWriter struct {
	w         io.Writer
	flushFunc func()

	mu        sync.Mutex
	pending   []byte
	spare     []byte // the last written pending, for the next one
	scheduled bool
	dropped   int

	appended atomic.Uint64 // writes held so far (a.mu is held to add one)
	written  atomic.Uint64 // of them, the ones a completed write wrote out
	stalled  atomic.Bool   // the output is slow: a caller waited in vain, or the last write took long

	writeMu sync.Mutex // one write to w at a time, in order
}

func (a *asyncWriter) Write(p []byte) (int, error) {
	a.mu.Lock()
	if len(a.pending)+len(p) > logBufferMax {
		a.dropped++
		a.mu.Unlock()
		return len(p), nil
	}
	a.noteDropped()
	a.pending = append(a.pending, p...)
	a.appended.Add(1)
	if !a.scheduled {
		// Written at once by a goroutine of its own, which the caller
		// waits for, up to a bound (yield); lines that come while it
		// writes go out together right after.
		a.scheduled = true
		go a.flushFunc()
	}
	a.mu.Unlock()
	return len(p), nil
}

// noteDropped says in pending how many lines were dropped since it last
// said so; a.mu is held.
func (a *asyncWriter) noteDropped() {
	if a.dropped == 0 {
		return
	}
	a.pending = append(a.pending, `{"level":"WARN","msg":"log lines dropped: the output is too slow","dropped":`...)
	a.pending = strconv.AppendInt(a.pending, int64(a.dropped), 10)
	a.pending = append(a.pending, "}\n"...)
	a.dropped = 0
}

func (a *asyncWriter) flush() { _ = a.Flush() }

// yieldMax is how long a caller waits for its line to be written out;
// slowWrite is how long a write may take before the output counts as slow.
const (
	yieldMax  = 100 * time.Millisecond
	slowWrite = time.Millisecond
)

// yield waits until what was held when it was called is written out, up to
// yieldMax: the handler calls it after the line is held and its lock
// released, so that the line is on the output before the caller answers
// the call. A client may stop the server on the answer, and a server that
// exits on SIGTERM without FlushLogger lost the line when the writing
// goroutine had not run yet (TestLastLineSurvivesAnExitOnSIGTERM: 1 child
// of 10 once nothing else delayed the exit; a race-built child's writing
// goroutine started up to 10 ms late). A slow output does not hold calls
// up: once a write took longer than slowWrite (the reader let the pipe
// fill), or a caller waited yieldMax in vain, callers do not wait until a
// write is quick again; a stuck output costs one call yieldMax at most.
func (a *asyncWriter) yield() {
	if a == nil {
		return
	}
	want := a.appended.Load()
	if a.written.Load() >= want || a.stalled.Load() {
		return
	}
	// Yielding, not sleeping: the wait is the writing goroutine's, and it
	// ends by yieldMax whatever the caller's context says.
	start := time.Now()
	for a.written.Load() < want {
		if time.Since(start) > yieldMax {
			a.stalled.Store(true)
			return
		}
		runtime.Gosched()
	}
}

// Flush writes out everything written so far.
func (a *asyncWriter) Flush() error {
	a.writeMu.Lock()
	defer a.writeMu.Unlock()
	return a.writeHeld()
}

// writeHeld writes out what is held; a.writeMu is held.
func (a *asyncWriter) writeHeld() error {
	a.mu.Lock()
	a.noteDropped()
	out := a.pending
	a.pending, a.spare = a.spare[:0], nil
	a.scheduled = false
	held := a.appended.Load()
	a.mu.Unlock()
	if len(out) == 0 {
		return nil
	}
	start := time.Now()
	_, err := a.w.Write(out)
	a.written.Store(held)
	// A write that had to wait for the reader (a full pipe) says the
	// output is slow: until one does not, callers do not wait for theirs.
	a.stalled.Store(time.Since(start) > slowWrite)
	if cap(out) <= logBufferSpare {
		// Kept for reuse, unless a burst grew it large.
		a.mu.Lock()
		a.spare = out[:0]
		a.mu.Unlock()
	}
	return err
}

// writeThrough is an asyncWriter whose writes are written out before they
// return, after what it holds: the way of a line at ERROR and above. It
// drops nothing.
type writeThrough asyncWriter

func (t *writeThrough) Write(p []byte) (int, error) {
	a := (*asyncWriter)(t)
	a.writeMu.Lock()
	defer a.writeMu.Unlock()
	if err := a.writeHeld(); err != nil {
		return 0, err
	}
	return a.w.Write(p)
}
