package wrap_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// With the README's WithTimeout on a server whose http.Server had a
// WriteTimeout as long, the timeout answer was written at the instant the
// server closed the connection: the client got nothing.
func TestTimeoutAnswerBeatsTheWriteTimeout(t *testing.T) {
	const d = time.Second // the tool timeout and the write timeout
	quiet := server.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler))
	cases := []struct {
		name  string
		serve func(t *testing.T, s *server.MCPServer, ln net.Listener) (shutdown func(context.Context) error)
	}{
		{"mounted in the server's own http.Server with WriteTimeout", func(t *testing.T, s *server.MCPServer, ln net.Listener) func(context.Context) error {
			h := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{}, quiet)
			hs := &http.Server{Handler: h, WriteTimeout: d}
			go func() { _ = hs.Serve(ln) }()
			return func(ctx context.Context) error { return errors.Join(hs.Shutdown(ctx), h.Shutdown(ctx)) }
		}},
		{"mcp-go's StreamableHTTPServer in an http.Server with WriteTimeout", func(t *testing.T, s *server.MCPServer, ln net.Listener) func(context.Context) error {
			h := server.NewStreamableHTTPServer(s, quiet)
			hs := &http.Server{Handler: h, WriteTimeout: d}
			go func() { _ = hs.Serve(ln) }()
			return func(ctx context.Context) error { return errors.Join(hs.Shutdown(ctx), h.Shutdown(ctx)) }
		}},
		{"NewHTTPServer's own WriteTimeout", func(t *testing.T, s *server.MCPServer, ln net.Listener) func(context.Context) error {
			hs := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{WriteTimeout: d}, quiet)
			go func() { _ = hs.Serve(ln) }()
			return hs.Shutdown
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			release := make(chan struct{})
			s := server.NewMCPServer("weather", "1.0.0",
				mcpgo.Wrap(wrap.WithLogger(slog.New(slog.DiscardHandler)), wrap.WithTimeout(d)))
			s.AddTool(mcp.NewTool("hang"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				<-release // ignores its context, as a hung upstream call does
				return mcp.NewToolResultText("late"), nil
			})
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			shutdown := c.serve(t, s, ln)
			t.Cleanup(func() {
				close(release)
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
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
			if !strings.Contains(string(body), `"isError":true`) || !strings.Contains(string(body), "timeout") {
				t.Fatalf("want a timeout answer, got %s", body)
			}
			if took := time.Since(start); took > d {
				t.Errorf("answered after %v, past the write deadline %v", took, d)
			}
			t.Logf("answer after %v: %s", time.Since(start).Round(time.Millisecond), bytes.TrimSpace(body))
		})
	}
}
