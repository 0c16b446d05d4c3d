// Command gosdkserver is the audit tests' bare go-sdk v1.8.0 server: a typed
// tool whose handler indexes its input (a panic on an empty list, which
// kills the process: the SDK has no recover), and a raw tool whose Go error
// quotes a secret. With -wrap the same server has mcpwrap attached
// (gosdk.Attach).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

type sumIn struct {
	Numbers []float64 `json:"numbers"`
	Label   string    `json:"label"`
}

type sumOut struct {
	Total float64 `json:"total"`
}

func main() {
	serveHTTP := flag.Bool("http", false, "serve streamable HTTP on 127.0.0.1:0 and print the URL on stdout")
	wrapped := flag.Bool("wrap", false, "attach mcpwrap (gosdk.Attach), logging to stderr")
	bare := flag.Bool("no-annotations", false, "annotate no tool (as many servers do): the default audit scope calls none")
	panicky := flag.Bool("panicky-prompt", false, "add a prompt whose handler panics (go-sdk does not recover: the process dies)")
	leaky := flag.Bool("leaky-resource", false, "add a resource whose text holds a database DSN with its password")
	flag.Parse()
	s := mcp.NewServer(&mcp.Implementation{Name: "audit-fixture-gosdk", Version: "1.0.0"}, nil)
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	if *bare {
		ro = nil
	}
	if *panicky {
		s.AddPrompt(&mcp.Prompt{Name: "review", Arguments: []*mcp.PromptArgument{{Name: "file", Required: true}}},
			func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				var lines map[string][]string
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
					{Role: "user", Content: &mcp.TextContent{Text: lines[req.Params.Arguments["file"]][0]}}, // panics: no such file
				}}, nil
			})
	}
	if *leaky {
		s.AddResource(&mcp.Resource{URI: "fixture://config", Name: "config"},
			func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "fixture://config", Text: "database: postgres://app:hunter2@10.0.3.7:5432/records"}}}, nil
			})
	}
	mcp.AddTool(s, &mcp.Tool{Name: "sum", Description: "Add numbers.", Annotations: ro},
		func(ctx context.Context, req *mcp.CallToolRequest, in sumIn) (*mcp.CallToolResult, sumOut, error) {
			total := in.Numbers[0] // panics on an empty list
			for _, n := range in.Numbers[1:] {
				total += n
			}
			return nil, sumOut{Total: total}, nil
		})
	s.AddTool(&mcp.Tool{
		Name:        "fetch_doc",
		Description: "Fetch a document.",
		Annotations: ro,
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"url": map[string]any{"type": "string"}}, "required": []string{"url"}},
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := string(req.Params.Arguments)
		if !strings.Contains(args, `"url"`) {
			return nil, errors.New("bad arguments " + args)
		}
		return nil, fmt.Errorf("upstream refused: GET http://10.1.2.3:8080/docs with token=%s", "ghp_0123456789abcdefghijklmnopqrstuvwxyz")
	})
	if *wrapped {
		logger := observe.NewLogger(observe.WithLogOutput(os.Stderr))
		gosdk.Attach(s, wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(25*time.Second)))
	}
	if *serveHTTP {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("http://%s/mcp\n", ln.Addr())
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
		log.Fatal(http.Serve(ln, h))
	}
	var tr mcp.Transport = &mcp.StdioTransport{}
	if *wrapped {
		tr = gosdk.Transport(&mcp.StdioTransport{})
	}
	if err := s.Run(context.Background(), tr); err != nil {
		log.Fatal(err)
	}
}
