package errbase_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errbase"
)

// TestErrsClassifiesEveryKind: errs recognises each kind, as a bare
// sentinel, as a mark, and as a mark under another mark. It fails when a
// kind is added here and not classified there.
func TestErrsClassifiesEveryKind(t *testing.T) {
	for _, tc := range []struct {
		kind error
		code errs.Code
	}{
		{errbase.SessionEnded, errs.Unavailable},
		{errbase.AuthRequired, errs.PermissionDenied},
		{errbase.InvalidParams, errs.InvalidArgument},
		{errbase.ResourceNotFound, errs.NotFound},
		{errbase.Interrupted, errs.Canceled},
		{errbase.Transport, errs.Unavailable},
	} {
		t.Run(tc.kind.Error(), func(t *testing.T) {
			marked := errbase.Mark(errors.New("sdk said no"), tc.kind)
			for name, err := range map[string]error{
				"sentinel":   fmt.Errorf("call: %w", tc.kind),
				"mark":       marked,
				"under mark": errbase.Mark(marked, errbase.Transport),
			} {
				if got := errs.CodeOf(err); got != tc.code {
					t.Errorf("%s: errs.CodeOf = %v, want %v", name, got, tc.code)
				}
				if !errors.Is(err, tc.kind) {
					t.Errorf("%s: errors.Is(err, kind) is false", name)
				}
			}
		})
	}
}
