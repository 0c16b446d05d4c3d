package gosdk

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/wrap/gosdk/internal/content"
)

// rounds is go-sdk's part in multi round-trip calls (content.Rounds), on
// the toolCall's own request.
var rounds call.Rounds = content.Rounds{
	Request:    func(r *call.Request) *mcp.CallToolRequest { return r.SDK.(*toolCall).m },
	SetRequest: func(r *call.Request, m *mcp.CallToolRequest) { r.SDK.(*toolCall).m = m },
}
