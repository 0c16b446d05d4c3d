package stdiodrain

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpwrap/mcpwrap/internal/logbuf"
)

// The drain matches what mcp-go writes to its requests' ids; a change in
// how mcp-go writes an answer shows here and in
// TestStdioAnswersEveryRequestReadBeforeStdinCloses.
func TestAnswerKey(t *testing.T) {
	cases := []struct {
		name, msg, key string
		ok             bool
	}{
		{"result", `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`, "7", true},
		{"error", `{"jsonrpc":"2.0","id":"a","error":{"code":-32602,"message":"x"}}`, `"a"`, true},
		{"result before id", `{"result":{"big":[1,2,3]},"id":1.0,"jsonrpc":"2.0"}`, "1", true},
		{"a request of the server's", `{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}}`, "", false},
		{"a notification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, "", false},
		{"a null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, "", false},
		{"not JSON", "Parse error\n", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k, ok := answerKey([]byte(c.msg + "\n"))
			if k != c.key || ok != c.ok {
				t.Fatalf("answerKey(%s) = %q, %v; want %q, %v", c.msg, k, ok, c.key, c.ok)
			}
		})
	}
}

// The drain holds the end back also when stdin returns it with the last
// data (iotest.DataErrReader), and waits for calls still running.
func TestDrainAnswersCallsInFlightAtTheEnd(t *testing.T) {
	s := server.NewMCPServer("drain", "1.0.0")
	s.AddTool(mcp.NewTool("slow"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		time.Sleep(20 * time.Millisecond) // still running when stdin ends
		return mcp.NewToolResultText("done"), nil
	})
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	for id := 2; id <= 8; id++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow"}}`+"\n", id)
	}
	var out logbuf.Buffer // Listen writes from many goroutines
	d := New(t.Context(), iotest.DataErrReader(strings.NewReader(in.String())), &out)
	if err := server.NewStdioServer(s).Listen(t.Context(), d, d); err != nil {
		t.Fatal(err)
	}
	answered := 0
	for l := range bytes.SplitSeq(bytes.TrimSpace([]byte(out.String())), []byte("\n")) {
		if k, ok := answerKey(l); ok && k != "" {
			answered++
		}
	}
	if answered != 8 {
		t.Fatalf("%d of 8 requests answered:\n%s", answered, []byte(out.String()))
	}
}
