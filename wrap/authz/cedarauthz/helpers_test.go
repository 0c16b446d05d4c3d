package cedarauthz_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpwrap/mcpwrap/wrap/authz/cedarauthz"
)

// writeFile replaces the file at path with src the way the package doc
// asks: a complete file renamed over the old one.
func writeFile(t testing.TB, path, src string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// load loads src from a file of its own, not watched.
func load(t testing.TB, src string, opts ...cedarauthz.Option) *cedarauthz.Policies {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policies.cedar")
	writeFile(t, path, src)
	p, err := cedarauthz.Load(path, append([]cedarauthz.Option{cedarauthz.WithInterval(0), cedarauthz.WithLogger(slog.New(slog.DiscardHandler))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}
