// Package mcpgoerr marks mcp-go's own error values with the failures errs
// knows (errbase.Mark), so that errs classifies them without importing mcp-go.
// The mcp-go adapter marks a handler's error, and the mcp-go client helpers
// (wrap/upstream, wrap/outbound) the errors of the clients they hold.
package mcpgoerr

import (
	"errors"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/internal/errbase"
)

// Mark returns err marked with the errs failure its mcp-go sentinel or type
// stands for; err itself when it holds none.
func Mark(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, transport.ErrSessionTerminated):
		err = errbase.Mark(err, errbase.SessionEnded)
	case errors.Is(err, transport.ErrAuthorizationRequired), errors.Is(err, transport.ErrOAuthAuthorizationRequired):
		err = errbase.Mark(err, errbase.AuthRequired)
	case errors.Is(err, mcp.ErrInvalidParams):
		err = errbase.Mark(err, errbase.InvalidParams)
	case errors.Is(err, mcp.ErrResourceNotFound):
		err = errbase.Mark(err, errbase.ResourceNotFound)
	case errors.Is(err, mcp.ErrRequestInterrupted):
		err = errbase.Mark(err, errbase.Interrupted)
	}
	var te *transport.Error
	if errors.As(err, &te) {
		err = errbase.Mark(err, errbase.Transport)
	}
	return err
}
