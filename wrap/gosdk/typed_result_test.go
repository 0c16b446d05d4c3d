package gosdk_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// TestTypedResultThatBreaksItsSchemaIsTheServersFaultOnGoSDK: a typed
// handler whose result breaks its own output type's rules gets an internal
// error, not a bad-argument one (the model did nothing wrong), and the log
// line says which rule.
func TestTypedResultThatBreaksItsSchemaIsTheServersFaultOnGoSDK(t *testing.T) {
	type code struct {
		Code string `json:"code" validate:"max=3"`
	}
	var logs logbuf.Buffer
	w := wrap.New(wrap.WithLogger(logs.Logger()))
	s := mcp.NewServer(&mcp.Implementation{Name: "codes", Version: "1.0.0"}, nil)
	gosdk.Attach(s, w)
	gosdk.AddTool(s, w, &mcp.Tool{Name: "code"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, code, error) {
		return nil, code{Code: "too long"}, nil
	})
	cs := serveGoSDK(t, s, false, "alice")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "code", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text := resultText(res); !res.IsError || !strings.Contains(text, "internal error") || strings.Contains(text, "too long") {
		t.Fatalf("isError %v, text %q", res.IsError, text)
	}
	lines, _ := logs.Find("tool", "code")
	if len(lines) != 1 || lines[0]["code"] != "internal" ||
		!strings.Contains(fmt.Sprint(lines[0]["cause"]), `breaks its own schema: parameter "code" must be at most 3`) {
		t.Fatalf("log lines %v", lines)
	}
}
