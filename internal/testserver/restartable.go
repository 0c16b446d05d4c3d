package testserver

import (
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"
)

// Restartable serves a handler on one loopback address and can be stopped,
// as a crash would (listener and every connection closed), and started again
// on the same port: an upstream outage for tests.
type Restartable struct {
	// Addr is host:port, the same across restarts.
	Addr    string
	t       testing.TB
	handler http.Handler
	mu      sync.Mutex
	srv     *http.Server
}

// StartRestartable serves h on 127.0.0.1:0; it is stopped when the test ends.
func StartRestartable(t testing.TB, h http.Handler) *Restartable {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Restartable{t: t, Addr: ln.Addr().String(), handler: h}
	r.serve(ln)
	t.Cleanup(r.Stop)
	return r
}

func (r *Restartable) serve(ln net.Listener) {
	r.mu.Lock()
	h := r.handler
	r.mu.Unlock()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	r.mu.Lock()
	r.srv = srv
	r.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// Stop closes the listener and every connection. Stopping a stopped server
// does nothing.
func (r *Restartable) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.srv != nil {
		_ = r.srv.Close()
		r.srv = nil
	}
}

// Restart listens on the same address again, retrying briefly while the
// port is still being released.
func (r *Restartable) Restart() { r.RestartWith(nil) }

// RestartWith is Restart with a new handler (a new process: its state is
// gone); nil keeps the old one.
func (r *Restartable) RestartWith(h http.Handler) {
	r.t.Helper()
	if h != nil {
		r.mu.Lock()
		r.handler = h
		r.mu.Unlock()
	}
	var ln net.Listener
	var err error
	for range 100 {
		if ln, err = net.Listen("tcp", r.Addr); err == nil {
			r.serve(ln)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.t.Fatalf("could not listen on %s again: %v", r.Addr, err)
}
