package loopback

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

// Restartable serves a handler on one loopback address and can be stopped,
// as a crash would (listener and every connection closed), and started again
// on the same port: an upstream outage for tests and demos.
type Restartable struct {
	// Addr is host:port, the same across restarts.
	Addr    string
	mu      sync.Mutex
	handler http.Handler
	srv     *http.Server
}

// NewRestartable serves h on 127.0.0.1:0.
func NewRestartable(h http.Handler) (*Restartable, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Restartable{Addr: ln.Addr().String(), handler: h}
	r.serve(ln)
	return r, nil
}

func (r *Restartable) serve(ln net.Listener) {
	r.mu.Lock()
	defer r.mu.Unlock()
	srv := &http.Server{Handler: r.handler, ReadHeaderTimeout: 5 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	r.srv = srv
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

// Restart listens on the same address again, retrying for up to a second
// while the port is still being released.
func (r *Restartable) Restart() error { return r.RestartWith(nil) }

// RestartWith is Restart with a new handler (a new process: its state is
// gone); nil keeps the old one.
func (r *Restartable) RestartWith(h http.Handler) error {
	if h != nil {
		r.mu.Lock()
		r.handler = h
		r.mu.Unlock()
	}
	var err error
	for range 100 {
		var ln net.Listener
		if ln, err = net.Listen("tcp", r.Addr); err == nil {
			r.serve(ln)
			return nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("listen on %s again: %w", r.Addr, err)
}
