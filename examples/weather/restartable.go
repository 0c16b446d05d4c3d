package main

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

// restartable serves a handler on one loopback address and can be stopped,
// as a crash would (listener and every connection closed), and started
// again on the same port: the upstream outage of the demo.
type restartable struct {
	// Addr is host:port, the same across restarts.
	Addr    string
	handler http.Handler
	mu      sync.Mutex
	srv     *http.Server
}

// newRestartable serves h on 127.0.0.1 on a free port.
func newRestartable(h http.Handler) (*restartable, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &restartable{Addr: ln.Addr().String(), handler: h}
	r.serve(ln)
	return r, nil
}

func (r *restartable) serve(ln net.Listener) {
	srv := &http.Server{Handler: r.handler, ReadHeaderTimeout: 5 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	r.mu.Lock()
	r.srv = srv
	r.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// Stop closes the listener and every connection; stopping a stopped
// server does nothing.
func (r *restartable) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.srv != nil {
		_ = r.srv.Close()
		r.srv = nil
	}
}

// Restart listens on the same address again, retrying for up to a second
// while the port is still being released.
func (r *restartable) Restart() error {
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
