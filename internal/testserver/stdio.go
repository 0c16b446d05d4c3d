package testserver

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// StartStdio serves s with mcp-go's stdio server over a pair of OS pipes
// (the same file descriptors a subprocess's stdin and stdout are) and
// returns an initialized mcp-go stdio client made with opts. Everything is stopped when
// the test ends.
func StartStdio(tb testing.TB, s *server.MCPServer, opts ...client.ClientOption) *client.Client {
	tb.Helper()
	inR, inW, err := os.Pipe() // client → server
	if err != nil {
		tb.Fatal(err)
	}
	outR, outW, err := os.Pipe() // server → client
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = server.NewStdioServer(s).Listen(ctx, inR, outW)
	}()
	cl := client.NewClient(transport.NewIO(outR, inW, io.NopCloser(eofReader{})), opts...)
	tb.Cleanup(func() {
		_ = cl.Close() // closes inW: the server reads EOF
		cancel()
		<-served
		_ = outW.Close()
		_ = inR.Close()
		_ = outR.Close()
	})
	initialize(tb, cl)
	return cl
}

// StartOver starts an initialized mcp-go client of s over the transport
// named: "stdio" as StartStdio, anything else over streamable HTTP as
// StartHTTP.
func StartOver(tb testing.TB, transport string, s *server.MCPServer, opts ...client.ClientOption) *client.Client {
	tb.Helper()
	if transport == "stdio" {
		return StartStdio(tb, s, opts...)
	}
	return StartHTTP(tb, s, opts...).Client
}

// Connect starts an initialized mcp-go client of the streamable-HTTP server
// at url, sending headers with every request; it is closed when the test
// ends.
func Connect(tb testing.TB, url string, headers map[string]string, opts ...client.ClientOption) *client.Client {
	tb.Helper()
	tr, err := transport.NewStreamableHTTP(url, transport.WithHTTPHeaders(headers))
	if err != nil {
		tb.Fatal(err)
	}
	return Start(tb, tr, opts...)
}

// Start starts an initialized mcp-go client over tr; it is closed when the
// test ends.
func Start(tb testing.TB, tr transport.Interface, opts ...client.ClientOption) *client.Client {
	tb.Helper()
	cl := client.NewClient(tr, opts...)
	tb.Cleanup(func() { _ = cl.Close() })
	initialize(tb, cl)
	return cl
}

// initialize starts cl and runs the MCP handshake, failing the test if
// either fails within 10 seconds.
func initialize(tb testing.TB, cl *client.Client) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.Start(ctx); err != nil {
		tb.Fatal(err)
	}
	if _, err := cl.Initialize(ctx, mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "mcpwrap-test", Version: "0"},
	}}); err != nil {
		tb.Fatal(err)
	}
}

// eofReader is a stderr with nothing on it.
type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
