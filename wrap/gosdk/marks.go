package gosdk

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpwrap/mcpwrap/internal/errbase"
)

// mark returns err marked with the errs failure its go-sdk sentinel stands
// for (errbase.Mark), so that errs classifies it without importing go-sdk: a
// handler that keeps a go-sdk client session returns these when the
// upstream went away.
func mark(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, mcp.ErrConnectionClosed), errors.Is(err, mcp.ErrSessionMissing):
		return errbase.Mark(err, errbase.SessionEnded)
	}
	var w *jsonrpc.Error
	if errors.As(err, &w) {
		// A wire error inside another error: go-sdk would send the outer
		// text with the inner code.
		switch w.Code {
		case jsonrpc.CodeInvalidParams:
			return errbase.Mark(err, errbase.InvalidParams)
		}
	}
	return err
}

// MarkError marks go-sdk's error values (a closed connection, a missing
// session) with the failures errs knows, for upstream.WithErrors when a
// handler keeps a go-sdk client.
func MarkError(err error) error { return mark(err) }
