package wrap

import (
	"context"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
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

// FatalExit configures what WithFatalExit does. Zero fields take the
// defaults.
type FatalExit struct {
	// Hooks run in order before the exit, e.g. flushing logs and traces
	// (observe's Shutdown has this shape). They share one deadline; a hook
	// that ignores its context is abandoned when the deadline passes.
	Hooks []func(context.Context) error
	// Grace is how long to wait, before the hooks, for the in-flight answer
	// to be written to the client (default 100ms).
	Grace time.Duration
	// Timeout bounds the grace and the hooks together (default 5s).
	Timeout time.Duration
	// Exit ends the process; nil means os.Exit. Tests inject their own.
	Exit func(code int)
	// Code is the exit status; 0 means ExitFatal.
	Code int
}

// fatalState is shared by the handlers built from one evaluation of the
// options, so that the process stops once.
type fatalState struct {
	f        FatalExit
	once     sync.Once
	stopping atomic.Bool
}

func newFatalState(f FatalExit) *fatalState {
	if f.Grace <= 0 {
		f.Grace = 100 * time.Millisecond
	}
	if f.Timeout <= 0 {
		f.Timeout = 5 * time.Second
	}
	f.Grace = min(f.Grace, f.Timeout)
	if f.Exit == nil {
		f.Exit = os.Exit
	}
	if f.Code == 0 {
		f.Code = ExitFatal
	}
	f.Hooks = append([]func(context.Context) error(nil), f.Hooks...)
	return &fatalState{f: f}
}

// errStopping answers calls that arrive after a fatal error, while the
// process is stopping.
var errStopping = errs.New(errs.Unavailable, "the server is shutting down after a fatal error; call again once it has restarted")

// trigger starts the stop, once: it logs the cause, waits the grace so the
// in-flight answer gets out, runs the hooks and exits.
func (s *fatalState) trigger(l *slog.Logger, tool, callID string, cause error) {
	s.once.Do(func() {
		s.stopping.Store(true)
		if l != nil {
			l.LogAttrs(context.Background(), slog.LevelError, "fatal error; stopping the server",
				slog.String("tool", tool), slog.String("call_id", callID),
				slog.String("cause", cause.Error()), slog.Int("exit_code", s.f.Code))
		}
		go s.stop(l)
	})
}

func (s *fatalState) stop(l *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), s.f.Timeout)
	defer cancel()
	_ = wait.Sleep(ctx, s.f.Grace)
	done := make(chan []slog.Attr, 1)
	go func() {
		var failed []slog.Attr
		for i, h := range s.f.Hooks {
			if err := h(ctx); err != nil {
				failed = append(failed, slog.String("hook_"+strconv.Itoa(i), err.Error()))
			}
		}
		done <- failed
	}()
	attrs := []slog.Attr{slog.Int("exit_code", s.f.Code), slog.Int("hooks", len(s.f.Hooks))}
	select {
	case failed := <-done:
		attrs = append(attrs, failed...)
	case <-ctx.Done():
		attrs = append(attrs, slog.Bool("hooks_timed_out", true))
	}
	if l != nil {
		l.LogAttrs(context.Background(), slog.LevelError, "exiting", attrs...)
	}
	s.f.Exit(s.f.Code)
}
