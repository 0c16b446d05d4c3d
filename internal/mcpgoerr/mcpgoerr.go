// Package mcpgoerr marks mcp-go's own error values with the failures errs
// knows (errs.Mark), so that errs classifies them without importing mcp-go.
// The mcp-go adapter marks a handler's error, and the mcp-go client helpers
// (wrap/upstream, wrap/outbound) the errors of the clients they hold.
package mcpgoerr

import (
	"errors"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
)

// Mark returns err marked with the errs failure its mcp-go sentinel or type
// stands for; err itself when it holds none.
func Mark(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, transport.ErrSessionTerminated):
		err = errs.Mark(err, errs.ErrSessionEnded)
	case errors.Is(err, transport.ErrAuthorizationRequired), errors.Is(err, transport.ErrOAuthAuthorizationRequired):
		err = errs.Mark(err, errs.ErrAuthRequired)
	case errors.Is(err, mcp.ErrInvalidParams):
		err = errs.Mark(err, errs.ErrInvalidParams)
	case errors.Is(err, mcp.ErrResourceNotFound):
		err = errs.Mark(err, errs.ErrResourceNotFound)
	case errors.Is(err, mcp.ErrRequestInterrupted):
		err = errs.Mark(err, errs.ErrInterrupted)
	}
	var te *transport.Error
	if errors.As(err, &te) {
		err = errs.Mark(err, errs.ErrTransport)
	}
	return err
}
