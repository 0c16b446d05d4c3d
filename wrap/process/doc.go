// Package process is what a server's process needs around its handlers:
// start-up checks that report every problem at once, before anything is
// served (Checks), and how the process stops on an errs.Fatal error or a
// signal (FatalExit, given to wrap.WithFatalExit). The exit statuses come
// from BSD sysexits(3), so that supervisors tell them from crashes.
//
//	var c process.Checks
//	key := c.Env("WEATHER_API_KEY")
//	c.MustPass(logger) // logs every problem and exits with ExitConfig
//	w := wrap.New(wrap.WithFatalExit(process.FatalExit{Signals: []os.Signal{syscall.SIGTERM}}))
package process
