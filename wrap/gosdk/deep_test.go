package gosdk_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/childproc"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// runChild serves the test server over stdio the ways a stdio server
// adopts mcpwrap with one line, gosdk.Run: on go-sdk's StdioTransport, on
// an IOTransport over the server's own reader and writer (stdin logged to
// stderr, as a server logging its commands does), and on a LoggingTransport
// over that.
func runChild(mode string, w *wrap.Wrapper) int {
	var t mcp.Transport = &mcp.StdioTransport{}
	own := &mcp.IOTransport{Reader: io.NopCloser(io.TeeReader(os.Stdin, io.Discard)), Writer: os.Stdout}
	switch mode {
	case "run-io":
		t = own
	case "run-logging":
		t = &mcp.LoggingTransport{Transport: own, Writer: io.Discard}
	}
	if err := gosdk.Run(context.Background(), newServer(nil), w, t); err != nil {
		fmt.Fprintln(os.Stderr, "run:", err)
		return 1
	}
	return 0
}

// goSDK18 says whether the go-sdk in the build is v1.8.0 or later (the
// stream transports' MaxLineLength came with v1.8.0's decoder limits), so
// that a test knows which bare behaviour to expect; read by name, so that
// it builds on v1.7.0.
func goSDK18() bool {
	_, ok := reflect.TypeFor[mcp.StdioTransport]().FieldByName("MaxLineLength")
	return ok
}

// stdioChild is a stdio server child process driven with raw lines.
type stdioChild struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan []byte
	exit  chan error
	seen  map[string]string
}

func startChild(t *testing.T, mode string) *stdioChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GOSDK_CHILD="+mode)
	cmd.Stderr = io.Discard
	in, out := childproc.Start(t, cmd)
	c := &stdioChild{cmd: cmd, in: in, lines: make(chan []byte, 16), exit: make(chan error, 1), seen: map[string]string{}}
	go func() {
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			l, err := r.ReadBytes('\n')
			if len(l) > 0 {
				c.lines <- l
			}
			if err != nil {
				close(c.lines)
				c.exit <- cmd.Wait()
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = in.Close()
		_ = cmd.Process.Kill()
	})
	return c
}

// send writes one line; it reports false when the child no longer reads,
// and kills a child that stops reading mid-line for two minutes, so that
// the test fails instead of hanging (one CI run hung here at load 18).
func (c *stdioChild) send(line string) bool {
	done := make(chan error, 1)
	go func() {
		_, err := io.WriteString(c.in, line+"\n")
		done <- err
	}()
	select {
	case err := <-done:
		return err == nil
	case <-time.After(2 * time.Minute):
		_ = c.cmd.Process.Kill()
		<-done
		return false
	}
}

// answer waits for the answer with the given id; "" when the child's
// output ended first.
func (c *stdioChild) answer(t *testing.T, id string) string {
	t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		if a, ok := c.seen[id]; ok {
			return a
		}
		select {
		case l, ok := <-c.lines:
			if !ok {
				return ""
			}
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(l, &m) == nil {
				c.seen[string(m.ID)] = string(l)
			}
		case <-deadline:
			t.Fatalf("no answer for id %s", id)
		}
	}
}

const initLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// deepRequests are the requests a stdio server must survive.
var deepRequests = []struct{ name, line string }{
	{"5000 levels", deepCall(5000)},
	{"100000 levels", deepCall(100000)},
	{"10 MB line of nesting", deepCall(5 << 20)},
	{"10 MB string", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"v":"` +
		strings.Repeat("x", 10<<20) + `"}}}`},
}

func deepCall(levels int) string {
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"v":` +
		strings.Repeat("[", levels) + strings.Repeat("]", levels) + `}}}`
}

// alive sends a hostile line and then a plain call, and reports whether
// the plain call is answered.
func alive(t *testing.T, c *stdioChild, line string) bool {
	t.Helper()
	if !c.send(initLine) || c.answer(t, "0") == "" {
		t.Fatal("the child did not initialize")
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if !c.send(line) {
		return false
	}
	if !c.send(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{}}}`) {
		return false
	}
	return strings.Contains(c.answer(t, "8"), `"text":"ok"`)
}

// TestStdioServerSurvivesDeepRequests: go-sdk v1.8.0's stdio transport ends
// the session, and the process of a stdio server, on a request nested
// deeper than 1 000 levels (v1.7.0 answered it); before, a server adopting
// wrap/gosdk had to move to v1.8.0. With the one line (gosdk.Run), on
// go-sdk's StdioTransport or the server's own reader and writer, the
// server answers every hostile request and the next call, on every go-sdk
// version.
func TestStdioServerSurvivesDeepRequests(t *testing.T) {
	t.Parallel() // its children work apart from every other test: it overlaps TestBarePanicKillsTheProcess
	limited := goSDK18()
	// bare: whether a bare server survives, per go-sdk version (measured).
	bare := map[string]bool{"5000 levels": !limited, "10 MB string": true}
	for _, h := range deepRequests {
		t.Run("bare "+h.name, func(t *testing.T) {
			want := bare[h.name]
			c := startChild(t, "bare")
			if got := alive(t, c, h.line); got != want {
				t.Errorf("bare go-sdk (v1.8.0's decoder: %v) alive = %v, want %v", limited, got, want)
			}
		})
		for _, mode := range []string{"run", "run-io", "run-logging"} {
			if h.name == "10 MB string" && mode != "run" {
				continue // what passes the guard is go-sdk's: one transport shows it
			}
			t.Run(mode+" "+h.name, func(t *testing.T) {
				c := startChild(t, mode)
				if !alive(t, c, h.line) {
					t.Fatalf("the server did not answer after %s (exit: %v)", h.name, <-c.exit)
				}
				want := `"code":-32600`
				if bare[h.name] {
					want = `"text":"ok"` // a request bare go-sdk takes passes
				}
				if a := c.answer(t, "7"); !strings.Contains(a, want) {
					t.Errorf("%s: %.300s", h.name, a)
				}
			})
		}
	}
}
