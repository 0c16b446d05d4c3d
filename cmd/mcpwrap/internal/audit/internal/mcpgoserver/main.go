// Command mcpgoserver is the audit tests' mcp-go v1.2.1 server, written the
// way servers are written in the wild: Require* helpers whose errors are
// returned as Go errors, an error that quotes its arguments and an internal
// address, a type assertion that panics on a wrong type. -wrap retrofits it
// with mcpwrap's one line; nothing else changes.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcpwrap/mcpwrap/observe"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

func main() {
	wrapped := flag.Bool("wrap", false, "retrofit with mcpgo.Attach")
	serveHTTP := flag.Bool("http", false, "serve streamable HTTP on 127.0.0.1:0 and print the URL on stdout")
	noisy := flag.Bool("print", false, "print a banner and a line per call on stdout (breaks stdio)")
	extra := flag.Int("tools", 0, "extra read-only tools echo_1…echo_N")
	hostile := flag.Bool("hostile-name", false, "add a read-only tool whose name holds terminal escapes")
	leaky := flag.Bool("leaky-resource", false, "add a resource whose text holds a database DSN with its password")
	panicky := flag.Bool("panicky-prompt", false, "add a prompt whose handler panics on its argument")
	flag.Parse()

	s := server.NewMCPServer("audit-fixture-mcpgo", "1.0.0")
	if *wrapped {
		logger := observe.NewLogger(observe.WithLogOutput(os.Stderr), observe.WithLogBuffer())
		mcpgo.Attach(s, wrap.New(wrap.WithLogger(logger), wrap.WithTimeout(25*time.Second)))
	}

	s.AddResource(mcp.NewResource("fixture://readme", "readme"),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: "fixture://readme", Text: "audit fixture"}}, nil
		})

	if *leaky {
		s.AddResource(mcp.NewResource("fixture://config", "config"),
			func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{mcp.TextResourceContents{URI: "fixture://config", Text: "database: postgres://app:hunter2@10.0.3.7:5432/records"}}, nil
			})
	}
	if *panicky {
		s.AddPrompt(mcp.NewPrompt("review", mcp.WithArgument("file", mcp.RequiredArgument())),
			func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				var lines map[string][]string
				return mcp.NewGetPromptResult("review", []mcp.PromptMessage{
					mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(lines[req.Params.Arguments["file"]][0])), // panics: no such file
				}), nil
			})
	}

	s.AddTool(mcp.NewTool("weather",
		mcp.WithDescription("Forecast for a city."),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithString("city", mcp.Required()),
		mcp.WithNumber("days"),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		city, err := req.RequireString("city")
		if err != nil {
			return nil, err
		}
		if *noisy {
			fmt.Println("weather called for", city)
		}
		return mcp.NewToolResultText("sunny in " + strconv.Quote(city[:min(len(city), 40)])), nil
	})

	s.AddTool(mcp.NewTool("lookup",
		mcp.WithDescription("Look up a record."),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithString("id", mcp.Required()),
		mcp.WithArray("fields", mcp.WithStringItems()),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if _, err := req.RequireString("id"); err != nil {
			return nil, err
		}
		if _, ok := req.GetArguments()["fields"]; ok {
			if _, err := req.RequireStringSlice("fields"); err != nil {
				return nil, err
			}
		}
		// The classic leak: the backend's error, with the arguments and
		// the database's address, handed straight back.
		return nil, fmt.Errorf("lookup %v: dial tcp 10.0.3.7:5432: connect: connection refused (postgres://app:hunter2@10.0.3.7/records)", req.GetArguments())
	})

	s.AddTool(mcp.NewTool("count",
		mcp.WithDescription("Count items."),
		mcp.WithReadOnlyHintAnnotation(true),
		mcp.WithArray("items", mcp.Required(), mcp.WithStringItems()),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		items, err := req.RequireStringSlice("items")
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText("first of " + strconv.Itoa(len(items)) + ": " + items[0]), nil // panics on an empty list
	})

	s.AddTool(mcp.NewTool("delete_record",
		mcp.WithDescription("Delete a record. Not read-only: the audit skips it by default."),
		mcp.WithString("id", mcp.Required()),
	), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "delete_record CALLED")
		return mcp.NewToolResultText("deleted"), nil
	})

	for i := 1; i <= *extra; i++ {
		name := "echo_" + strconv.Itoa(i)
		s.AddTool(mcp.NewTool(name,
			mcp.WithReadOnlyHintAnnotation(true),
			mcp.WithString("text", mcp.Required()),
			mcp.WithNumber("repeat"),
		), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text, err := req.RequireString("text")
			if err != nil {
				return nil, err
			}
			return mcp.NewToolResultText(strconv.Itoa(len(text)) + " bytes"), nil
		})
	}

	if *hostile {
		s.AddTool(mcp.NewTool("evil\x1b[2J\x1b]0;pwned\x07",
			mcp.WithReadOnlyHintAnnotation(true),
		), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("\x1b[31mred\x1b[0m"), nil
		})
	}
	if *noisy {
		fmt.Println("audit-fixture-mcpgo starting")
	}
	if *serveHTTP {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("http://%s/mcp\n", ln.Addr())
		log.Fatal(http.Serve(ln, server.NewStreamableHTTPServer(s)))
	}
	if err := server.ServeStdio(s); err != nil {
		log.Fatal(err)
	}
}
