package errs_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
)

// TestMessageEndingInFullStopJoinsClauses: a message that ends with a full
// stop, followed by the clauses ToResult adds (retry after, attempts, side
// effects), reads as one sentence: never ".;" or ". (". The loop guard's
// refusal read "…use another tool.; the request did not reach the
// upstream".
func TestMessageEndingInFullStopJoinsClauses(t *testing.T) {
	cases := []struct {
		name string
		err  error
		call errs.Call
	}{
		{"side effects none", errs.New(errs.NotFound, "no such note. Change the arguments."), errs.Call{Tool: "read", SideEffects: errs.SideEffectsNone}},
		{"side effects possible", errs.New(errs.Unavailable, "upstream down."), errs.Call{Tool: "write", SideEffects: errs.SideEffectsPossible}},
		{"retry after", errs.New(errs.RateLimited, "quota reached.", errs.RetryAfter(2*time.Second)), errs.Call{Tool: "read"}},
		{"unavailable", errs.New(errs.Unavailable, "upstream down. "), errs.Call{Tool: "read"}},
		{"attempts", errs.New(errs.Timeout, "took too long."), errs.Call{Tool: "read", Attempts: 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := errs.ToResult(c.err, c.call).Text
			for _, bad := range []string{".;", ". ;", ". (", ".. "} {
				if strings.Contains(msg, bad) {
					t.Errorf("%q contains %q", msg, bad)
				}
			}
			if !strings.Contains(msg, "; ") && !strings.Contains(msg, " (after") {
				t.Errorf("%q: no clause was added", msg)
			}
		})
	}
	// Alone, a message keeps its full stop, and an ellipsis is never cut.
	if got := errs.ToResult(errs.New(errs.NotFound, "no such note."), errs.Call{Tool: "read"}).Text; got != "no such note." {
		t.Errorf("alone: %q", got)
	}
	if got := errs.ToResult(errs.New(errs.NotFound, "wait..."), errs.Call{Tool: "read", SideEffects: errs.SideEffectsNone}).Text; !strings.HasPrefix(got, "wait...; ") {
		t.Errorf("ellipsis: %q", got)
	}
}
