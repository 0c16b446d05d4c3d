package errs_test

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestErrsImportsNothingOfOurs: errs is the server's vocabulary, which
// every other package of mcpwrap imports, so it imports none of them (not
// even an internal one): what it needs of the SDK adapters' marks it
// recognises by their methods. It used to import internal/errbase.
func TestErrsImportsNothingOfOurs(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == "github.com/mcpwrap/mcpwrap" || strings.HasPrefix(path, "github.com/mcpwrap/mcpwrap/") {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}
