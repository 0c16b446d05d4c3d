package errs_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/mcpwrap/mcpwrap"

// TestErrsImportsOnlyALeaf: errs is the server's vocabulary, which every
// other package of mcpwrap imports, so it imports none of them but a leaf
// internal package (internal/errbase, which holds what errs shares with
// the SDK adapters: the failure kinds, the typed-nil guard, the Retry-After
// parser) that itself imports nothing of mcpwrap. Before, errs recognised
// the adapters' marks by a method name and kept its own copies of the rest.
func TestErrsImportsOnlyALeaf(t *testing.T) {
	for _, path := range ours(t, ".") {
		if !strings.HasPrefix(path, module+"/internal/") {
			t.Errorf("errs imports %s, which is not internal", path)
			continue
		}
		dir := filepath.Join("..", strings.TrimPrefix(path, module+"/"))
		if deeper := ours(t, dir); len(deeper) > 0 {
			t.Errorf("errs imports %s, which is not a leaf: it imports %v", path, deeper)
		}
	}
}

// ours returns the packages of mcpwrap that the non-test files in dir import.
func ours(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var found []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == module || strings.HasPrefix(path, module+"/") {
				found = append(found, path)
			}
		}
	}
	return found
}
