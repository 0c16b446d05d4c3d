package call_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpwrap/mcpwrap/internal/adapter"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// An adapter describes each request with a call.Request, hands the chain a
// Handler that runs the SDK's handler, and sends what the Answer holds.
func Example() {
	req := &call.Request{Kind: call.Tool, Name: "read_note", Args: map[string]any{"name": "x.md"}}
	a := adapter.Chain(wrap.New())(context.Background(), req, func(context.Context, *call.Request) (call.Result, error) {
		return nil, errors.New("quota exhausted for this session")
	})
	// The call id ties the answer to the log line; it differs per call.
	fmt.Println(a.Error.Info.Code, strings.Replace(a.Error.Text, a.Error.Info.CallID, "<id>", 1))
	// Output: internal quota exhausted for this session (call id <id>)
}
