package wrap_test

import (
	"context"
	"fmt"
	"io/fs"
	"strings"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/wrap"
)

// The chain without an SDK, as an adapter runs it: a plain error wrapped
// around a standard one keeps the handler's words in front of errs'
// sentence; a panic is masked, with a call id for the log.
func Example() {
	w := wrap.New()
	ctx := context.Background()
	req := &call.Request{Kind: call.Tool, Name: "read_note"}

	ans := w.Serve(ctx, req, func(context.Context, *call.Request) (call.Result, error) {
		return nil, fmt.Errorf("read note %s: %w", "x.md", fs.ErrNotExist)
	})
	fmt.Println(ans.Error.Info.Code, "|", ans.Error.Text)

	ans = w.Serve(ctx, req, func(context.Context, *call.Request) (call.Result, error) {
		panic("assignment to entry in nil map")
	})
	fmt.Println(ans.Error.Info.Code, ans.Error.Info.CallID != "",
		strings.HasPrefix(ans.Error.Text, `internal error in tool "read_note" (call id `))
	// Output:
	// not_found | read note x.md: not found
	// internal true true
}
