// Command stdioexit is the stdio server of TestBufferedLogLinesSurviveExit:
// the README's stdio set-up (a buffered observe logger, the one-line
// retrofit) with one tool, echo. With -bare it serves with mcp-go's
// server.ServeStdio, as servers did before mcpgo.ServeStdio.
package main

import (
	"context"
	"flag"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/obs"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

func main() {
	bare := flag.Bool("bare", false, "serve with server.ServeStdio")
	flag.Parse()
	logger := obs.NewLogger(obs.WithLogBuffer(), obs.WithLogFormat("json"))
	s := server.NewMCPServer("stdioexit", "1.0.0")
	mcpgo.Attach(s, wrap.New(wrap.WithLogger(logger)))
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	var err error
	if *bare {
		err = server.ServeStdio(s)
	} else {
		err = mcpgo.ServeStdio(s, logger)
	}
	if err != nil && err != context.Canceled {
		os.Exit(1)
	}
}
