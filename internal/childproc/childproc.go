// Package childproc starts child processes for tests: a server run as a
// real process (usually the test binary itself, in a mode an environment
// variable selects), so that its exit, its signals and its stdio are real.
package childproc

import (
	"io"
	"os/exec"
	"testing"
)

// Start starts cmd with a pipe to its stdin and one from its stdout,
// failing the test if it cannot; the caller waits for it.
func Start(tb testing.TB, cmd *exec.Cmd) (stdin io.WriteCloser, stdout io.ReadCloser) {
	tb.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err = cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return stdin, stdout
}
