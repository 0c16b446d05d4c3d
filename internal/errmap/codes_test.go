package errmap_test

import (
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
)

// TestCodesListsTheClosedSet: Codes is every errs code in declaration order,
// and the number after the last one is outside the set.
func TestCodesListsTheClosedSet(t *testing.T) {
	codes := errmap.Codes()
	for i, c := range codes {
		if c != errs.Code(i) || strings.HasPrefix(c.String(), "code(") {
			t.Fatalf("Codes()[%d] = %v", i, c)
		}
	}
	if next := errs.Code(len(codes)); !strings.HasPrefix(next.String(), "code(") {
		t.Fatalf("errs has a code %q that Codes leaves out", next)
	}
}
