// Package shutdown stops the process the way process.FatalExit says: after
// an errs.Fatal error (wrap.WithFatalExit) or a signal, new calls are
// refused, the calls in flight drained, the hooks run and the process
// exits. The chain's admission (wrap's bulkhead.go) enters and leaves it.
package shutdown

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/internal/redact"
	"github.com/mcpwrap/mcpwrap/internal/wait"
	"github.com/mcpwrap/mcpwrap/wrap/process"
)

// State is shared by the handlers built from one evaluation of the
// options, so that the process stops once. It is safe for concurrent use.
type State struct {
	f        process.FatalExit
	once     sync.Once
	stopping atomic.Bool
	// refusal answers the calls that arrive while stopping; set before
	// stopping.
	refusal atomic.Pointer[errs.Error]
	// inflight counts the calls admitted and not yet answered.
	inflight atomic.Int64
	bindOnce sync.Once
	obs      atomic.Pointer[obs.Observer]
}

// New is the state of a process that stops as f says; zero fields take
// their defaults.
func New(f process.FatalExit) *State {
	if f.Drain <= 0 {
		f.Drain = 10 * time.Second
	}
	if f.Grace <= 0 {
		f.Grace = 100 * time.Millisecond
	}
	if f.Timeout <= 0 {
		f.Timeout = 5 * time.Second
	}
	if f.Exit == nil {
		f.Exit = os.Exit
	}
	if f.Code == 0 {
		f.Code = process.ExitFatal
	}
	f.Hooks = slices.Clone(f.Hooks)
	f.Signals = slices.Clone(f.Signals)
	return &State{f: f}
}

// Refusals of calls that arrive while the process stops.
var (
	errStopping     = errs.New(errs.Unavailable, "the server is shutting down after a fatal error; call again once it has restarted")
	errShuttingDown = errs.New(errs.Unavailable, "the server is shutting down; call again once it has restarted")
)

// Bind gives the stop the observer whose logger writes its lines (the first
// evaluation's) and starts watching the signals.
func (s *State) Bind(o *obs.Observer) {
	s.bindOnce.Do(func() {
		if o != nil {
			s.obs.Store(o)
		}
		if len(s.f.Signals) == 0 {
			return
		}
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, s.f.Signals...)
		go func() {
			sig := <-ch
			signal.Stop(ch)
			s.start(nil, errShuttingDown, 0, "signal received; stopping the server",
				slog.String("signal", sig.String()))
		}()
	})
}

// Enter admits a call unless the process is stopping. The count goes up
// first, so that a drain that has seen stopping set also sees every call
// admitted before.
func (s *State) Enter() error {
	s.inflight.Add(1)
	if s.stopping.Load() {
		s.inflight.Add(-1)
		return s.refusal.Load()
	}
	return nil
}

// Leave is the end of a call Enter admitted.
func (s *State) Leave() { s.inflight.Add(-1) }

// Trigger starts the stop after a fatal error, once. o is the observer
// of the failed call, which may be the Middleware's rather than the one
// the stop was bound to: the stop's lines go where the call's line went.
func (s *State) Trigger(o *obs.Observer, tool, callID string, cause error) {
	if o == nil {
		o = s.obs.Load()
	}
	red := redact.NewRedactor()
	if o != nil {
		red = o.Redactor()
	}
	s.start(o, errStopping, s.f.Code, "fatal error; stopping the server",
		slog.String("tool", tool), slog.String("call_id", callID),
		slog.String("cause", red.String(cause.Error())))
}

// start begins the stop, once: it refuses new calls, logs why and leaves
// the rest to a goroutine, so that the call that triggered it is answered.
// A non-nil o becomes the observer of every line of the stop.
func (s *State) start(o *obs.Observer, refusal *errs.Error, code int, msg string, attrs ...slog.Attr) {
	s.once.Do(func() {
		if o != nil {
			s.obs.Store(o)
		}
		s.refusal.Store(refusal)
		s.stopping.Store(true)
		s.log(msg, append(attrs, slog.Int("exit_code", code))...)
		go s.stop(code)
	})
}

func (s *State) stop(code int) {
	attrs := []slog.Attr{slog.Int("exit_code", code), slog.Int("hooks", len(s.f.Hooks))}
	attrs = s.drain(attrs)
	time.Sleep(s.f.Grace)

	ctx, cancel := context.WithTimeout(context.Background(), s.f.Timeout)
	defer cancel()
	done := make(chan []slog.Attr, 1)
	go func() { done <- s.runHooks(ctx) }()
	select {
	case failed := <-done:
		attrs = append(attrs, failed...)
	case <-ctx.Done():
		attrs = append(attrs, slog.Bool("hooks_timed_out", true))
	}
	s.log("exiting", attrs...)
	// A buffered logger holds the last lines, this one included; the
	// providers hold the last spans and metrics.
	_ = s.obs.Load().Flush(ctx)
	s.f.Exit(code)
}

// drain waits, up to the drain time, for the calls in flight to end, and
// appends to attrs how long it waited and how many calls it dropped.
func (s *State) drain(attrs []slog.Attr) []slog.Attr {
	t0 := time.Now()
	drain, cancel := context.WithTimeout(context.Background(), s.f.Drain)
	for s.inflight.Load() > 0 && wait.Sleep(drain, 5*time.Millisecond) == nil {
	}
	cancel()
	attrs = append(attrs, slog.Float64("drain_ms", float64(time.Since(t0).Microseconds())/1000))
	if n := s.inflight.Load(); n > 0 {
		attrs = append(attrs, slog.Int64("calls_dropped", n))
	}
	return attrs
}

// runHooks runs the hooks in order and returns the errors of those that
// failed, one attribute each.
func (s *State) runHooks(ctx context.Context) []slog.Attr {
	var failed []slog.Attr
	for i, h := range s.f.Hooks {
		if err := runHook(ctx, h); err != nil {
			failed = append(failed, slog.String("hook_"+strconv.Itoa(i), s.redact(err.Error())))
		}
	}
	return failed
}

// runHook runs one exit hook; a panic in it is its error, so that the
// other hooks run, the exiting line is written and the exit code is the
// one asked for.
func runHook(ctx context.Context, h func(context.Context) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return h(ctx)
}

// log writes one error line to the observer's logger, if there is one.
func (s *State) log(msg string, attrs ...slog.Attr) {
	// Observer.Log redacts and sanitises like the per-call lines, and does
	// nothing without an observer or a logger.
	s.obs.Load().Log(context.Background(), slog.LevelError, msg, attrs...)
}

// redact scrubs secrets from text bound for the log, as the per-call lines
// are.
func (s *State) redact(text string) string {
	if o := s.obs.Load(); o != nil {
		return o.Redactor().String(text)
	}
	return redact.NewRedactor().String(text)
}
