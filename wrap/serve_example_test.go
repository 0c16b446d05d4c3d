package wrap_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// A request body over the cap is answered before mcp-go reads it, and no
// handler runs.
func ExampleNewHTTPServer() {
	s := server.NewMCPServer("weather", "1.0.0", server.WithToolHandlerMiddleware(mcpgo.Middleware(wrap.New())))
	hs := mcpgo.NewHTTPServer(s, mcpgo.HTTPLimits{MaxBodyBytes: 1 << 10})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go func() { _ = hs.Serve(ln) }()
	defer func() { _ = hs.Shutdown(context.Background()) }()

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"q":"` + strings.Repeat("a", 2<<10) + `"}}}`
	resp, err := http.Post("http://"+ln.Addr().String()+"/mcp", "application/json", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	fmt.Println(resp.StatusCode)
	// Output: 413
}
