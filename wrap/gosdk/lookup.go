package gosdk

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
)

// Looking a tool up: go-sdk keeps a tool's annotations in the *mcp.Tool the
// server holds and exposes no way to read them (v1.7.0, v1.8.0) but its
// own tools/list. The middleware sees a call's name only, so when the
// chain needs the annotations (a failed call it might retry, a timeout
// whose advice depends on them) it asks the server: a tools/list request
// on the call's session, through the method handlers under the
// middleware, page by page until the tool is found. The common successful
// call never pays for it.

const (
	// lookupTimeout bounds one lookup: it runs while a call waits for its
	// answer, possibly after the call's own deadline.
	lookupTimeout = 2 * time.Second
	// lookupPages bounds the pages read, against a cursor that never ends.
	lookupPages = 100
)

// Tool implements call.Lookup for a tools/call the middleware serves.
func (tc *toolCall) Tool(ctx context.Context, name string) (info call.Info) {
	defer func() {
		if recover() != nil {
			info = call.Info{} // a tools/list that panics tells nothing
		}
	}()
	next, ss := tc.next.next, tc.m.Session
	if next == nil || ss == nil {
		return call.Info{}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookupTimeout)
	defer cancel()
	cursor := ""
	for range lookupPages {
		// The call's Extra (token info, headers): middleware that checks
		// them sees the caller's.
		res, err := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: ss, Extra: tc.m.Extra, Params: &mcp.ListToolsParams{Cursor: cursor}})
		list, ok := res.(*mcp.ListToolsResult)
		if err != nil || !ok || list == nil {
			return call.Info{}
		}
		if t := toolNamed(list.Tools, name); t != nil {
			return infoOf(t)
		}
		if list.NextCursor == "" || list.NextCursor == cursor {
			return call.Info{}
		}
		cursor = list.NextCursor
	}
	return call.Info{}
}

// toolNamed is the tool of tools named name, or nil.
func toolNamed(tools []*mcp.Tool, name string) *mcp.Tool {
	for _, t := range tools {
		if t != nil && t.Name == name {
			return t
		}
	}
	return nil
}
