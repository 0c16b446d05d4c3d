package gosdk

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpwrap/mcpwrap/errs"
)

// sdkAnswerCode is the errs code of go-sdk's own answer to a name no
// handler serves: "unknown tool %q", "unknown prompt %q" (both -32602) and
// ResourceNotFoundError's "Resource not found" are NotFound, the client's
// mistake, not a server fault. go-sdk has no sentinel for them, so they
// are known by their sentences (mcp/server.go, mcp/resource.go);
// TestClientMistakesAreWarnings fails when an upgrade rewords them. Any
// other *jsonrpc.Error is Internal here: the chain then goes by its code.
func sdkAnswerCode(w *jsonrpc.Error) errs.Code {
	switch {
	case w.Code == jsonrpc.CodeInvalidParams && (strings.HasPrefix(w.Message, `unknown tool "`) || strings.HasPrefix(w.Message, `unknown prompt "`)):
		return errs.NotFound
	case (w.Code == jsonrpc.CodeInvalidParams || w.Code == codeResourceNotFound) && w.Message == "Resource not found":
		return errs.NotFound
	}
	return errs.Internal
}

// codeResourceNotFound is what ResourceNotFoundError sends with
// MCPGODEBUG=customresnotfounderrcode=1.
const codeResourceNotFound = -32002

// nilResourceError reports whether err is go-sdk v1.8's own answer to a
// resource handler's missing result ("reading resource %s: read handler
// returned nil information", mcp/server.go), which v1.7 does not have (it
// dereferences the nil). The chain answers both versions alike, as the
// missing result it is; TestMatrix fails when an upgrade rewords it.
func nilResourceError(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "reading resource ") && strings.HasSuffix(msg, ": read handler returned nil information")
}
