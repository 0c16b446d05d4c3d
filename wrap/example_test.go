package wrap_test

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// A tool's handler behind the chain (here through mcpgo.Tool, which runs
// it for a server the Wrapper is not attached to): a plain error wrapped
// around a standard one keeps the handler's words in front of errs'
// sentence; a panic is masked, with a call id for the log.
func Example() {
	w := wrap.New()
	ctx := context.Background()
	text := func(res *mcp.CallToolResult) string { return res.Content[0].(mcp.TextContent).Text }

	readNote := mcpgo.Tool(w, mcp.NewTool("read_note"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("read note %s: %w", "x.md", fs.ErrNotExist)
	})
	res, _ := readNote.Handler(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "read_note"}})
	info, _ := mcpgo.InfoOf(res)
	fmt.Println(info.Code, "|", text(res))

	parseNote := mcpgo.Tool(w, mcp.NewTool("parse_note"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("assignment to entry in nil map")
	})
	res, _ = parseNote.Handler(ctx, mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "parse_note"}})
	info, _ = mcpgo.InfoOf(res)
	fmt.Println(info.Code, info.CallID != "", strings.HasPrefix(text(res), `internal error in tool "parse_note" (call id `))
	// Output:
	// not_found | read note x.md: not found
	// internal true true
}
