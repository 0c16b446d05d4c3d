package main

import (
	"strings"
	"testing"
)

func TestQualifiedNamesTheLine(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"pkg github.com/mcpwrap/mcpwrap/errs, func FromStatus(string, int, http.Header) error", "errs.FromStatus"},
		{"pkg github.com/mcpwrap/mcpwrap/errs, method (*Error) Unwrap() error", "errs.Error.Unwrap"},
		{"pkg github.com/mcpwrap/mcpwrap/errs, type Info struct, CallID string", "errs.Info.CallID"},
		{"pkg github.com/mcpwrap/mcpwrap/errs, type Info struct", "errs.Info"},
		{"pkg github.com/mcpwrap/mcpwrap/wrap, type Limiter interface { Admit }", "wrap.Limiter"},
		{"pkg github.com/mcpwrap/mcpwrap/wrap, type Limiter interface, Admit(context.Context) error", "wrap.Limiter.Admit"},
		{"pkg github.com/mcpwrap/mcpwrap/wrap/mcpgo, func Typed[In any, Out any](*wrap.Wrapper) server.ServerTool", "mcpgo.Typed"},
		{"pkg github.com/mcpwrap/mcpwrap/wrap/mcpgo, type TypedHandler[In any, Out any] func(In) Out", "mcpgo.TypedHandler"},
		{"pkg github.com/mcpwrap/mcpwrap/errs, const NotFound Code = 3", "errs.NotFound"},
		{"pkg github.com/mcpwrap/mcpwrap/wrap, method (Ring[T]) Len() int", "wrap.Ring.Len"},
	} {
		if got := qualified(c.line); got != c.want {
			t.Errorf("qualified(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}

// TestAChangeNeedsItsNameUnderUnreleased is the rule of -check for a
// removed or changed line: named in the first section, if that section is
// Unreleased or a version; a mention under an older version does not count.
func TestAChangeNeedsItsNameUnderUnreleased(t *testing.T) {
	line := "pkg github.com/mcpwrap/mcpwrap/errs, func FromStatus(string, int, http.Header) error"
	for _, c := range []struct {
		name, changelog string
		want            bool
	}{
		{"named under Unreleased", "# Changelog\n\n## Unreleased\n\n- `errs.FromStatus` takes a header.\n\n## v0.1.0\n", true},
		{"named under the next version", "# Changelog\n\n## v0.2.0 (next)\n\n- errs.FromStatus: a header.\n", true},
		{"named under an older version only", "# Changelog\n\n## Unreleased\n\n- nothing\n\n## v0.1.0\n\n- errs.FromStatus\n", false},
		{"a longer name is not this one", "## Unreleased\n\n- errs.FromStatusCode\n", false},
		{"another package's name is not this one", "## Unreleased\n\n- xerrs.FromStatus\n", false},
		{"no Unreleased heading", "# Changelog\n\n## Notes\n\n- errs.FromStatus\n", false},
		{"no changelog", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := mentions(unreleased(c.changelog), line); got != c.want {
				t.Errorf("mentions = %v, want %v", got, c.want)
			}
		})
	}
}

func TestDiffSeesAChangedSignatureAsRemovedAndAdded(t *testing.T) {
	old := []string{"pkg p, func A(int)", "pkg p, func B()"}
	now := []string{"pkg p, func A(int, string)", "pkg p, func B()", "pkg p, func C()"}
	added, removed := diff(old, now)
	if strings.Join(removed, ";") != "pkg p, func A(int)" || strings.Join(added, ";") != "pkg p, func A(int, string);pkg p, func C()" {
		t.Errorf("added %q, removed %q", added, removed)
	}
}
