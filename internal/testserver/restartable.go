package testserver

import (
	"net/http"
	"testing"

	"github.com/mcpwrap/mcpwrap/wrap/upstream/upstreamtest"
)

// Restartable is upstreamtest.Restartable.
type Restartable = upstreamtest.Restartable

// NewRestartable is upstreamtest.NewRestartable.
func NewRestartable(h http.Handler) (*Restartable, error) { return upstreamtest.NewRestartable(h) }

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
