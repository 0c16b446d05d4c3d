package wrap

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
)

// Exit statuses of a process stopped by mcpwrap, from BSD sysexits(3) so
// that supervisors and operators can tell them from crashes (2) and signals
// (128+n).
const (
	// ExitFatal (70, EX_SOFTWARE) is used when a handler returned an
	// errs.Fatal error and WithFatalExit is on.
	ExitFatal = 70
	// ExitConfig (78, EX_CONFIG) is used by Checks.MustPass when start-up
	// checks fail.
	ExitConfig = 78
)

// FatalExit configures how the process stops, after an errs.Fatal error
// (WithFatalExit) and, when Signals are given, on a signal. The stop is the
// same in both cases:
//
//  1. calls that arrive from then on are refused with an Unavailable result
//     ("the server is shutting down …"), their handlers not run;
//  2. calls in flight are drained: the stop waits, up to Drain, until every
//     one of them has been answered (a handler abandoned by its timeout has
//     been answered already and is not waited for);
//  3. Grace is left for the last answers to be written to their clients;
//  4. the hooks run in order, within their own budget, Timeout;
//  5. the "exiting" line is logged, the log buffer and the telemetry
//     providers are flushed (within what is left of Timeout), and Exit is
//     called.
//
// The lines go to the logger of WithLogger, redacted
// like the per-call lines; for a tool's own WithFatalExit under a
// Middleware, to the telemetry the tool's calls use, which may be the
// Middleware's. The stop takes at most Drain + Grace + Timeout.
// Zero fields take the defaults.
type FatalExit struct {
	// Hooks run in order before the exit, e.g. closing an HTTP server
	// (HTTPServer.Shutdown) or stopping the exporters (export's
	// Telemetry.Shutdown). They share one deadline, Timeout; a hook that
	// ignores its context is abandoned when it passes.
	Hooks []func(context.Context) error
	// Drain bounds the wait for the calls in flight to be answered
	// (default 10s). Calls still running when it passes are dropped, and
	// the "exiting" line counts them.
	Drain time.Duration
	// Grace is the time left, after the drain, for the last answers to be
	// written to the client (default 100ms).
	Grace time.Duration
	// Timeout is the hooks' own budget (default 5s).
	Timeout time.Duration
	// Signals, when given, make the process stop the same way when one of
	// them arrives (usually syscall.SIGTERM and os.Interrupt), exiting with
	// status 0. The signals are caught from the moment the options are
	// evaluated.
	Signals []os.Signal
	// Exit ends the process; nil means os.Exit. Tests inject their own.
	Exit func(code int)
	// Code is the exit status after a fatal error; 0 means ExitFatal.
	Code int
}

// fatalState is shared by the handlers built from one evaluation of the
// options, so that the process stops once.
type fatalState struct {
	f        FatalExit
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

func newFatalState(f FatalExit) *fatalState {
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
		f.Code = ExitFatal
	}
	f.Hooks = slices.Clone(f.Hooks)
	f.Signals = slices.Clone(f.Signals)
	return &fatalState{f: f}
}

// Refusals of calls that arrive while the process stops.
var (
	errStopping     = errs.New(errs.Unavailable, "the server is shutting down after a fatal error; call again once it has restarted")
	errShuttingDown = errs.New(errs.Unavailable, "the server is shutting down; call again once it has restarted")
)

// bind gives the stop the observer whose logger writes its lines (the first
// evaluation's) and starts watching the signals.
func (s *fatalState) bind(o *obs.Observer) {
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

// enter admits a call unless the process is stopping. The count goes up
// first, so that a drain that has seen stopping set also sees every call
// admitted before.
func (s *fatalState) enter() error {
	s.inflight.Add(1)
	if s.stopping.Load() {
		s.inflight.Add(-1)
		return s.refusal.Load()
	}
	return nil
}

func (s *fatalState) leave() { s.inflight.Add(-1) }

// trigger starts the stop after a fatal error, once. o is the observer
// of the failed call, which may be the Middleware's rather than the one
// the stop was bound to: the stop's lines go where the call's line went.
func (s *fatalState) trigger(o *obs.Observer, tool, callID string, cause error) {
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
func (s *fatalState) start(o *obs.Observer, refusal *errs.Error, code int, msg string, attrs ...slog.Attr) {
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

func (s *fatalState) stop(code int) {
	attrs := []slog.Attr{slog.Int("exit_code", code), slog.Int("hooks", len(s.f.Hooks))}
	t0 := time.Now()
	drain, cancel := context.WithTimeout(context.Background(), s.f.Drain)
	for s.inflight.Load() > 0 && wait.Sleep(drain, 5*time.Millisecond) == nil {
	}
	cancel()
	attrs = append(attrs, slog.Float64("drain_ms", float64(time.Since(t0).Microseconds())/1000))
	if n := s.inflight.Load(); n > 0 {
		attrs = append(attrs, slog.Int64("calls_dropped", n))
	}
	time.Sleep(s.f.Grace)

	ctx, cancel := context.WithTimeout(context.Background(), s.f.Timeout)
	defer cancel()
	done := make(chan []slog.Attr, 1)
	go func() {
		var failed []slog.Attr
		for i, h := range s.f.Hooks {
			if err := runHook(ctx, h); err != nil {
				failed = append(failed, slog.String("hook_"+strconv.Itoa(i), s.redact(err.Error())))
			}
		}
		done <- failed
	}()
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
func (s *fatalState) log(msg string, attrs ...slog.Attr) {
	// Observer.Log redacts and sanitises like the per-call lines, and does
	// nothing without an observer or a logger.
	s.obs.Load().Log(context.Background(), slog.LevelError, msg, attrs...)
}

// redact scrubs secrets from text bound for the log, as the per-call lines
// are.
func (s *fatalState) redact(text string) string {
	if o := s.obs.Load(); o != nil {
		return o.Redactor().String(text)
	}
	return redact.NewRedactor().String(text)
}
