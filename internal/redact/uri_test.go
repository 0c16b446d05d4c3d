package redact_test

import (
	"strings"
	"testing"

	"github.com/mcpwrap/mcpwrap/internal/redact"
)

func TestRedactorURI(t *testing.T) {
	r := redact.NewRedactor()
	for _, c := range []struct{ in, want string }{
		{"note://today", "note://today"},
		{"postgres://admin:hunter2@db.internal:5432/notes", "postgres://admin:[REDACTED]@db.internal:5432/notes"},
		{"https://api.example.com/v1/doc?id=7&api_key=sk-abcdef&token=xyz", "https://api.example.com/v1/doc?id=7&api_key=[REDACTED]&token=[REDACTED]"},
		{"file:///tmp/a\u202eb", "file:///tmp/a\\u202eb"},
	} {
		if got := r.URI(c.in); got != c.want {
			t.Errorf("URI(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := r.URI("note://" + strings.Repeat("a", 1<<20)); len(got) > 2<<10 {
		t.Errorf("a 1 MiB URI is logged as %d bytes", len(got))
	}
}
