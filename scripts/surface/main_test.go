package main

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// TestCountsWhatGoDocShows checks the counting rule on a small tree: every
// exported top-level name and every exported method of an exported type,
// no test files, nothing under internal/, examples/ or cmd/, no methods of
// unexported types (counted apart).
func TestCountsWhatGoDocShows(t *testing.T) {
	root := t.TempDir()
	write := func(path, src string) {
		t.Helper()
		p := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pub/a.go", `package pub
const (A = 1; b = 2)
var V, w int
type T struct{}
func (T) M() {}
func (*T) m() {}
type hidden struct{}
func (hidden) Shown() {}
type G[X any] struct{}
func (G[X]) N() {}
func F() {}
func f() {}
`)
	write("pub/a_test.go", "package pub\nfunc TestX() {}\n")
	write("pub/internal/x/x.go", "package x\nfunc Hidden() {}\n")
	write("examples/e/e.go", "package e\nfunc Example() {}\n")
	write("cmd/tool/main.go", "package main\nfunc Main() {}\n")

	got, hidden, err := count(root)
	if err != nil {
		t.Fatal(err)
	}
	if hidden != 1 {
		t.Errorf("left out %d methods of unexported types, want 1 (hidden.Shown)", hidden)
	}
	names := got["pub"]
	sort.Strings(names)
	want := []string{"const A", "func F", "method G.N", "method T.M", "type G", "type T", "var V"}
	if len(got) != 1 || len(names) != len(want) {
		t.Fatalf("counted %v, want only pub with %v", got, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("counted %v, want %v", names, want)
		}
	}
}
