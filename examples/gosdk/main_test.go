package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
)

// TestExample serves the example over streamable HTTP on 127.0.0.1 and
// drives it with go-sdk's client: the panic and the DSN error are answered
// with a call id, the process keeps serving, and each call has its log line.
func TestExample(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var logs logbuf.Buffer
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-http", "127.0.0.1:0"}, &logs, func(a string) { addrc <- a }) }()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatal(err)
	}
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, c := range []struct{ tool, args, want string }{
		{"crash", `{}`, `internal error in tool "crash" (call id `},
		{"order", `{}`, `insert order: dial postgres://[host]/orders: connection refused`},
		{"forecast", `{"city":"Rome","days":3}`, `3 days of sun in Rome`},
		{"forecast", `{"city":"Rome","days":"three"}`, `parameter "days" must be an integer, got a string`},
		{"forecast_v2", `{"cty":"Rome","days":99}`, `unknown parameter "cty"; did you mean "city"?`},
		{"forecast_v2", `{"city":"Atlantis","days":1}`, `no weather station in "Atlantis"`},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !strings.Contains(text, c.want) || strings.Contains(text, "s3cret") {
			t.Errorf("%s %s: %q, want %q", c.tool, c.args, text, c.want)
		}
	}
	lines, err := logs.Find("msg", "tool call")
	if err != nil || len(lines) != 6 {
		t.Fatalf("%d tool call log lines, want 6 (%v)\n%s", len(lines), err, logs.String())
	}
	if strings.Contains(logs.String(), "s3cret") {
		t.Error("the password is in the log")
	}
}
