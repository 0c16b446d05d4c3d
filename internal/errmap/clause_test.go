package errmap_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/errmap"
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
		call errmap.Call
	}{
		{"side effects none", errs.New(errs.NotFound, "no such note. Change the arguments."), errmap.Call{Tool: "read", SideEffects: errmap.SideEffectsNone}},
		{"side effects possible", errs.New(errs.Unavailable, "upstream down."), errmap.Call{Tool: "write", SideEffects: errmap.SideEffectsPossible}},
		{"retry after", errs.New(errs.RateLimited, "quota reached.", errs.RetryAfter(2*time.Second)), errmap.Call{Tool: "read"}},
		{"unavailable", errs.New(errs.Unavailable, "upstream down. "), errmap.Call{Tool: "read"}},
		{"attempts", errs.New(errs.Timeout, "took too long."), errmap.Call{Tool: "read", Attempts: 3}},
		{"side effects happened", errs.New(errs.ResultTooLarge, "it succeeded."), errmap.Call{Tool: "write", SideEffects: errmap.SideEffectsHappened}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			msg := errmap.ToResult(c.err, c.call).Text
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
	if got := errmap.ToResult(errs.New(errs.NotFound, "no such note."), errmap.Call{Tool: "read"}).Text; got != "no such note." {
		t.Errorf("alone: %q", got)
	}
	if got := errmap.ToResult(errs.New(errs.NotFound, "wait..."), errmap.Call{Tool: "read", SideEffects: errmap.SideEffectsNone}).Text; !strings.HasPrefix(got, "wait...; ") {
		t.Errorf("ellipsis: %q", got)
	}
}
