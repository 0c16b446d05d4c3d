package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/wrap"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk"
)

// lineArgs is what the tools below decode their arguments into.
type lineArgs struct {
	Mode string `json:"mode"`
	Line uint32 `json:"line,omitempty"`
}

// upstreamIssue is an upstream's answer, decoded by a typed tool.
type upstreamIssue struct {
	ID int `json:"id"`
}

// TestRawToolDecodeErrorNamesTheParameter: a raw go-sdk tool that decodes
// req.Params.Arguments with json.Unmarshal and returns the error (gopls'
// and most raw tools' way) got {"line":1.5} answered as an internal error
// (ERROR in the log, no violation), though the caller sent a fraction for
// an integer: the model must read invalid_argument naming "line". A typed
// tool whose handler fails to decode an upstream's answer must not blame
// the caller for it.
func TestRawToolDecodeErrorNamesTheParameter(t *testing.T) {
	w, tel := newWrapper(t, wrap.WithTimeout(5*time.Second))
	s := mcp.NewServer(&mcp.Implementation{Name: "decode", Version: "1.0.0"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"mode":{"type":"string"},"line":{"type":"integer"}}}`)
	s.AddTool(&mcp.Tool{Name: "raw_plain", InputSchema: schema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a lineArgs
		if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "raw_wrapped", InputSchema: schema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a lineArgs
		if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
			return nil, fmt.Errorf("invalid arguments: %s", err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "typed_upstream"}, func(context.Context, *mcp.CallToolRequest, struct {
		ID string `json:"id"`
	}) (*mcp.CallToolResult, any, error) {
		var issue upstreamIssue
		if err := json.Unmarshal([]byte(`{"id":"not-a-number"}`), &issue); err != nil {
			return nil, nil, fmt.Errorf("decode issue: %w", err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "typed_count"}, func(context.Context, *mcp.CallToolRequest, struct {
		N int `json:"n"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	})
	gosdk.Attach(s, w)
	cs := connect(t, "http", s, true)
	ctx := context.Background()

	// What the model reads for a number the field's Go type cannot hold:
	// the bare "must be an integer, got number" said neither which number
	// nor why (-1 and 99999999999 are integers).
	words := map[string]string{
		`{"mode":"ok","line":1.5}`:         `parameter "line" must be an integer, got the number 1.5`,
		`{"mode":"ok","line":-1}`:          `parameter "line" must be an integer between 0 and 4294967295, got the number -1`,
		`{"mode":"ok","line":99999999999}`: `parameter "line" must be an integer between 0 and 4294967295, got the number 99999999999`,
		`{"mode":"ok","line":2.0}`:         `parameter "line" must be an integer written without a fraction or exponent, got the number 2.0`,
		`{"mode":5}`:                       `parameter "mode" must be a string, got number`,
	}
	for _, tool := range []string{"raw_plain", "raw_wrapped"} {
		for args, want := range words {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
			if err != nil {
				t.Fatalf("%s %s: %v", tool, args, err)
			}
			info, ok := gosdk.InfoOf(res)
			param := "line"
			if strings.Contains(args, `"mode":5`) {
				param = "mode"
			}
			if !ok || info.Code != "invalid_argument" || len(info.Violations) != 1 || info.Violations[0].Parameter != param {
				t.Errorf("%s %s: %+v (ok %v), want invalid_argument naming %q", tool, args, info, ok, param)
			} else if info.Violations[0].Message != want {
				t.Errorf("%s %s: %q, want %q", tool, args, info.Violations[0].Message, want)
			}
		}
		lines, _ := tel.logs.Find("tool", tool)
		for _, l := range lines {
			if l["level"] != "WARN" || l["outcome"] != "invalid_argument" {
				t.Errorf("%s: logged %v %v, want WARN invalid_argument", tool, l["level"], l["outcome"])
			}
		}
	}

	// go-sdk's own decoding failure of a typed tool's arguments (a number
	// its schema allows but int cannot hold) stays the caller's.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "typed_count", Arguments: json.RawMessage(`{"n":1e30}`)})
	if err != nil {
		t.Fatal(err)
	}
	if info, ok := gosdk.InfoOf(res); !ok || info.Code != "invalid_argument" || len(info.Violations) != 1 || info.Violations[0].Parameter != "n" {
		t.Errorf("typed tool given 1e30 for an int: %+v (ok %v), want invalid_argument naming \"n\"", info, ok)
	} else if want := `parameter "n" must be an integer between -9223372036854775808 and 9223372036854775807, got the number 1e+30`; info.Violations[0].Message != want {
		t.Errorf("typed tool given 1e30 for an int: %q, want %q", info.Violations[0].Message, want)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "typed_upstream", Arguments: map[string]any{"id": "42"}})
	if err != nil {
		t.Fatal(err)
	}
	if info, ok := gosdk.InfoOf(res); !ok || info.Code == "invalid_argument" {
		t.Errorf("typed tool failing to decode its upstream's answer: %+v (ok %v), want no invalid_argument: the caller's id was fine", info, ok)
	}
}
