// Command wrapped serves the same tools on both SDKs with mcpwrap attached,
// over stateless streamable HTTP, where servers are often built per
// request: the Wrapper belongs outside the factory.
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

type echoIn struct {
	Text string `json:"text"`
}

type echoOut struct {
	Text string `json:"text"`
}

func newSDKServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "wrapped", Version: "1.0.0"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo"}, func(ctx context.Context, req *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, echoOut, error) {
		if in.Text == "" {
			panic("empty text") // clean: panic
		}
		if len(in.Text) > 1000 {
			return nil, echoOut{}, errs.New(errs.InvalidArgument, "text is longer than 1000 bytes") // clean: masked
		}
		return nil, echoOut{Text: in.Text}, nil
	})
	return s
}

func newMCPGoServer(opts ...server.ServerOption) *server.MCPServer {
	s := server.NewMCPServer("wrapped", "1.0.0", opts...)
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text", mcp.Required())), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		text, err := req.RequireString("text")
		if err != nil {
			return nil, err // clean: masked
		}
		return mcp.NewToolResultText(text), nil
	})
	return s
}

// attachPerRequest builds a Wrapper for the server it is given: called per request below.
func attachPerRequest(s *sdk.Server) *sdk.Server {
	gosdk.Attach(s, wrap.New(wrap.WithTimeout(10*time.Second))) // defect: perrequest
	return s
}

func main() {
	shared := wrap.New(wrap.WithTimeout(10 * time.Second)) // clean: perrequest

	mux := http.NewServeMux()
	// Right: one Wrapper, a server per request.
	mux.Handle("/good", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server {
		s := newSDKServer()
		gosdk.Attach(s, shared) // clean: perrequest
		return s
	}, &sdk.StreamableHTTPOptions{Stateless: true}))
	// Wrong: a Wrapper per request.
	mux.Handle("/bad", sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		s := newSDKServer()
		gosdk.Attach(s, wrap.New(wrap.WithTimeout(10*time.Second))) // defect: perrequest
		return s
	}, &sdk.StreamableHTTPOptions{Stateless: true}))
	mux.Handle("/bad-helper", sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		return attachPerRequest(newSDKServer())
	}, nil))
	mux.HandleFunc("/bad-mcpgo", func(w http.ResponseWriter, r *http.Request) {
		s := newMCPGoServer(server.WithToolCapabilities(true))
		mcpgo.Attach(s, wrap.New(wrap.WithTimeout(10*time.Second))) // defect: perrequest
		server.NewStreamableHTTPServer(s, server.WithStateLess(true)).ServeHTTP(w, r)
	})
	mux.Handle("/bad-attach", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := newMCPGoServer()
		mcpgo.Attach(s, wrap.New()) // defect: perrequest
		server.NewStreamableHTTPServer(s, server.WithStateLess(true)).ServeHTTP(w, r)
	}))
	mux.HandleFunc("/good-mcpgo", func(w http.ResponseWriter, r *http.Request) {
		s := newMCPGoServer()
		mcpgo.Attach(s, shared) // clean: perrequest
		server.NewStreamableHTTPServer(s, server.WithStateLess(true)).ServeHTTP(w, r)
	})
	once := newMCPGoServer()
	mcpgo.Attach(once, wrap.New()) // clean: perrequest
	mux.Handle("/mcpgo", server.NewStreamableHTTPServer(once))
	fmt.Println("listening") // clean: stdout
	log.Fatal(http.ListenAndServe("127.0.0.1:8080", mux))
}
