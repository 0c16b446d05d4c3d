package mcpgoerr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errbase"
	"github.com/mcpwrap/mcpwrap/internal/mcpgoerr"
)

// TestMarkNamesEveryMCPGoSentinel fails when an mcp-go upgrade drops or
// changes one of the error values errs is told about.
func TestMarkNamesEveryMCPGoSentinel(t *testing.T) {
	cases := []struct {
		err  error
		kind error
		code errs.Code
	}{
		{transport.ErrSessionTerminated, errbase.SessionEnded, errs.Unavailable},
		{transport.ErrAuthorizationRequired, errbase.AuthRequired, errs.PermissionDenied},
		{mcp.ErrInvalidParams, errbase.InvalidParams, errs.InvalidArgument},
		{mcp.ErrResourceNotFound, errbase.ResourceNotFound, errs.NotFound},
		{mcp.ErrRequestInterrupted, errbase.Interrupted, errs.Canceled},
	}
	for _, c := range cases {
		err := mcpgoerr.Mark(fmt.Errorf("call upstream: %w", c.err))
		if !errors.Is(err, c.kind) || !errors.Is(err, c.err) || errs.CodeOf(err) != c.code {
			t.Errorf("%v: marked %v, code %s, want %v and %s", c.err, errors.Is(err, c.kind), errs.CodeOf(err), c.kind, c.code)
		}
		if err.Error() != "call upstream: "+c.err.Error() {
			t.Errorf("the mark changed the text: %q", err)
		}
	}
	if mcpgoerr.Mark(nil) != nil {
		t.Error("Mark(nil) is not nil")
	}
}
