package mcpgo_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// With the README's WithTimeout on a server whose http.Server had a
// WriteTimeout as long, the timeout answer was written at the instant the
// server closed the connection: the client got nothing. Then the answer
// named the time left before the write deadline (`timed out after
// 4.499s` for a 5s timeout) instead of the timeout the operator set.
//
// The answer reaching the client shows it was written before the write
// deadline: past it, net/http closes the connection unwritten. No clock is
// read for that, so a loaded machine cannot fail it; the timeout is long
// enough that its margin (a tenth of the write timeout, 500ms) holds there.
func TestTimeoutAnswerBeatsTheWriteTimeout(t *testing.T) {
	const d = 5 * time.Second // the tool timeout and the write timeout
	says := regexp.MustCompile(`timed out after ([0-9.]+m?s), the most the server's 5s write timeout leaves \(the tool's timeout is 5s\); the operation may still complete upstream`)
	cases := []struct {
		name  string
		serve func(t *testing.T, s *server.MCPServer, ln net.Listener) (shutdown func(context.Context) error)
	}{
		{"mounted in the server's own http.Server with WriteTimeout", func(t *testing.T, s *server.MCPServer, ln net.Listener) func(context.Context) error {
			h := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{}, quietHTTP)
			hs := &http.Server{Handler: h, WriteTimeout: d}
			go func() { _ = hs.Serve(ln) }()
			return func(ctx context.Context) error { return errors.Join(hs.Shutdown(ctx), h.Shutdown(ctx)) }
		}},
		{"mcp-go's StreamableHTTPServer in an http.Server with WriteTimeout", func(t *testing.T, s *server.MCPServer, ln net.Listener) func(context.Context) error {
			h := server.NewStreamableHTTPServer(s, quietHTTP)
			hs := &http.Server{Handler: h, WriteTimeout: d}
			go func() { _ = hs.Serve(ln) }()
			return func(ctx context.Context) error { return errors.Join(hs.Shutdown(ctx), h.Shutdown(ctx)) }
		}},
		{"NewHTTPServer's own WriteTimeout", func(t *testing.T, s *server.MCPServer, ln net.Listener) func(context.Context) error {
			hs := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{WriteTimeout: d}, quietHTTP)
			go func() { _ = hs.Serve(ln) }()
			return hs.Shutdown
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			body, took := callHang(t, d, c.serve)
			t.Logf("answer after %v: %s", took.Round(time.Millisecond), bytes.TrimSpace(body))
			m := says.FindSubmatch(body)
			if m == nil {
				t.Fatalf("want a timeout answer naming the 5s timeout and the write timeout that cut it short, got %s", body)
			}
			if waited, err := time.ParseDuration(string(m[1])); err != nil || waited > d-adapter.WriteMargin(d) {
				t.Errorf("the answer says it waited %s, want at most %v", m[1], d-adapter.WriteMargin(d))
			}
		})
	}
}

// A tool timeout shorter than the write timeout is the one the answer
// names, to the millisecond.
func TestTimeoutAnswerNamesTheTimeoutSet(t *testing.T) {
	const d = 300 * time.Millisecond
	body, _ := callHang(t, d, func(t *testing.T, s *server.MCPServer, ln net.Listener) func(context.Context) error {
		hs := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{WriteTimeout: time.Minute}, quietHTTP)
		go func() { _ = hs.Serve(ln) }()
		return hs.Shutdown
	})
	if want := `timed out after 300ms; the operation may still complete upstream`; !bytes.Contains(body, []byte(want)) {
		t.Fatalf("want %q, got %s", want, body)
	}
}

var quietHTTP = server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler))

// callHang serves a tool "hang" that ignores its context, with timeout d,
// calls it once over HTTP and returns the answer's body and how long it
// took; a call that gets no answer fails the test.
func callHang(t *testing.T, d time.Duration, serve func(t *testing.T, s *server.MCPServer, ln net.Listener) func(context.Context) error) ([]byte, time.Duration) {
	t.Helper()
	release := make(chan struct{})
	s := server.NewMCPServer("weather", "1.0.0",
		attached(wrap.New(wrap.WithLogger(slog.New(slog.DiscardHandler)), wrap.WithTimeout(d))))
	s.AddTool(mcp.NewTool("hang"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-release // ignores its context, as a hung upstream call does
		return mcp.NewToolResultText("late"), nil
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	shutdown := serve(t, s, ln)
	t.Cleanup(func() {
		close(release)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = shutdown(ctx)
	})
	url := "http://" + ln.Addr().String() + "/mcp"
	resp, _ := post(t, url, "", strings.NewReader(initialize), int64(len(initialize)))
	session := resp.Header.Get(server.HeaderKeySessionID)

	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hang","arguments":{}}}`
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader([]byte(call)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(server.HeaderKeySessionID, session)
	start := time.Now()
	got, err := http.DefaultClient.Do(req)
	var body []byte
	if err == nil {
		body, err = io.ReadAll(got.Body)
		got.Body.Close()
	}
	if err != nil {
		t.Fatalf("after %v the client got no answer: %v", time.Since(start).Round(time.Millisecond), errors.Unwrap(err))
	}
	if !bytes.Contains(body, []byte(`"isError":true`)) {
		t.Fatalf("want a timeout answer, got %s", body)
	}
	return body, time.Since(start)
}
