package process

import (
	"context"
	"os"
	"time"
)

// Exit statuses of a process stopped by mcpwrap, from BSD sysexits(3) so
// that supervisors and operators can tell them from crashes (2) and signals
// (128+n).
const (
	// ExitFatal (70, EX_SOFTWARE) is used when a handler returned an
	// errs.Fatal error and wrap.WithFatalExit is on.
	ExitFatal = 70
	// ExitConfig (78, EX_CONFIG) is used by Checks.MustPass when start-up
	// checks fail.
	ExitConfig = 78
)

// FatalExit configures how the process stops, after an errs.Fatal error
// (wrap.WithFatalExit) and, when Signals are given, on a signal. The stop is the
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
// The lines go to the logger of wrap.WithLogger, redacted
// like the per-call lines; for a tool's own WithFatalExit, to the logger
// the tool's calls use. The stop takes at most Drain + Grace + Timeout.
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
