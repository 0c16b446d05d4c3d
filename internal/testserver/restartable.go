package testserver

import (
	"net/http"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/loopback"
)

// Restartable serves a handler on one loopback address and can be stopped
// and started again on the same port (loopback.Restartable).
type Restartable = loopback.Restartable

// NewRestartable serves h on 127.0.0.1:0.
func NewRestartable(h http.Handler) (*Restartable, error) { return loopback.NewRestartable(h) }

// StartRestartable is NewRestartable for tests: it is stopped when the test
// ends.
func StartRestartable(t testing.TB, h http.Handler) *Restartable {
	t.Helper()
	r, err := NewRestartable(h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Stop)
	return r
}
