package gosdk_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/adaptercases"
	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// TestTypedResultThatBreaksItsSchemaIsTheServersFaultOnGoSDK is
// TestTypedResultThatBreaksItsSchemaIsTheServersFault (wrap/mcpgo) on a
// gosdk.AddTool tool.
func TestTypedResultThatBreaksItsSchemaIsTheServersFaultOnGoSDK(t *testing.T) {
	var logs logbuf.Buffer
	w := wrap.New(wrap.WithLogger(logs.Logger()))
	s := mcp.NewServer(&mcp.Implementation{Name: "codes", Version: "1.0.0"}, nil)
	gosdk.Attach(s, w)
	gosdk.AddTool(s, w, &mcp.Tool{Name: "code"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, adaptercases.SchemaBreakCode, error) {
		return nil, adaptercases.SchemaBreakCode{Code: "too long"}, nil
	})
	res, err := serveGoSDK(t, s, false, "alice").CallTool(context.Background(), &mcp.CallToolParams{Name: "code", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	lines, _ := logs.Find("tool", "code")
	adaptercases.CheckSchemaBreak(t, res.IsError, resultText(res), lines)
}
