package redact_test

import (
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/errcases"
	"github.com/mcpwrap/mcpwrap/internal/redact"
)

// TestShownErrorsHideInternalHostNames: a plain error quoting an
// upstream's 500 showed the model an internal host name (git-03.internal)
// while a URL's host became [host]. A name under an internal-only suffix
// becomes [host] too; dotted words that name no host (file names,
// versions, identifiers, public hosts, dotfiles) are left as they are.
func TestShownErrorsHideInternalHostNames(t *testing.T) {
	var r *redact.Redactor
	for _, c := range errcases.HostTexts {
		t.Run(c.Text, func(t *testing.T) {
			got, ok := r.Public(c.Text, nil)
			if !ok || !strings.Contains(got, "[host]") {
				t.Fatalf("%q became %q (worth reading %v)", c.Text, got, ok)
			}
			for _, h := range c.Hosts {
				if strings.Contains(got, h) {
					t.Fatalf("the model reads %q in %q", h, got)
				}
			}
		})
	}
	for _, text := range errcases.PlainTexts {
		t.Run(text, func(t *testing.T) {
			if got, ok := r.Public(text, nil); got != text || !ok {
				t.Fatalf("%q became %q (worth reading %v)", text, got, ok)
			}
		})
	}
}
