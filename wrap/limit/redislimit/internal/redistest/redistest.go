// Package redistest runs a real redis-server on loopback for the tests of
// wrap/limit/redislimit.
//
// CI sets MCPWRAP_REDIS_ADDR to the server it started (.ci/run) and
// installs redis-server; tests that need their own server (to stop it
// mid-run) start one from the binary. Outside CI (neither CI nor
// MCPWRAP_REDIS_ADDR set), a test whose binary is missing is skipped; in
// CI that is a failure, so CI never skips them.
package redistest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// EnvAddr names the variable holding the address of a running Redis.
const EnvAddr = "MCPWRAP_REDIS_ADDR"

// Addr returns the address of a Redis for the test: CI's, or one started
// for the test.
func Addr(t testing.TB) string {
	t.Helper()
	if a := os.Getenv(EnvAddr); a != "" {
		return a
	}
	return Start(t).Addr
}

// Server is a redis-server process the test controls.
type Server struct {
	Addr string
	bin  string
	port int
	cmd  *exec.Cmd
	t    testing.TB
}

// Start runs redis-server on a free loopback port without persistence; it
// is stopped when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(EnvAddr) != "" || os.Getenv("CI") != "" {
			t.Fatalf("redis-server not found in CI: %v", err)
		}
		t.Skipf("redis-server not installed (and neither CI nor %s set): %v", EnvAddr, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	s := &Server{Addr: "127.0.0.1:" + strconv.Itoa(port), bin: bin, port: port, t: t}
	s.Restart()
	t.Cleanup(s.Stop)
	return s
}

// Restart starts the server again after Stop, on the same port, empty.
func (s *Server) Restart() {
	s.t.Helper()
	if s.cmd != nil {
		return
	}
	cmd := exec.Command(s.bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(s.port),
		"--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("start redis-server: %v", err)
	}
	s.cmd = cmd
	rdb := redis.NewClient(&redis.Options{Addr: s.Addr, DialTimeout: 200 * time.Millisecond, MaxRetries: -1})
	defer rdb.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := rdb.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.Stop()
			s.t.Fatalf("redis-server on %s did not answer: %v", s.Addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop stops the server and waits for it to exit.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT) // a paused server cannot exit
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Pause stops the server's process without closing its socket (SIGSTOP):
// connections hang, as with a stalled Redis.
func (s *Server) Pause() {
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(syscall.SIGSTOP)
	}
}

// Resume continues a paused server.
func (s *Server) Resume() {
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(syscall.SIGCONT)
	}
}
