// Package main serves stdio with mcp-go; handler writes to stdout corrupt the stream.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func debug(v string) {
	fmt.Fprintf(os.Stdout, "debug %s\n", v) // want `stdout: debug \(called by tool "echo"\) writes to stdout \(os.Stdout\), which this program uses for JSON-RPC over stdio`
}

func main() {
	s := server.NewMCPServer("x", "1")
	s.AddTool(mcp.NewTool("echo"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Println("called echo") // want `stdout: tool "echo" writes to stdout \(fmt.Println\)`
		debug("x")
		fmt.Fprintln(os.Stderr, "called echo") // clean: stderr
		return mcp.NewToolResultText("ok"), nil
	})
	fmt.Println("starting") // clean: not in a handler
	_ = server.ServeStdio(s)
}
