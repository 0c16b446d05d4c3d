package obs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPublicSurface keeps the package small and readable: no exported
// mutable variable, a bounded number of exported package-level names, no file over 500
// lines, no function over 80, and struct tags read only through
// internal/structtag.
// The engine here, the redaction and the logger it uses, and the public
// observe package over them all keep the
// file, function, variable and tag rules; the bound on names is the public
// package's (15 today, 73 with the engine in it), the engine's own names
// being no user's vocabulary.
func TestPublicSurface(t *testing.T) {
	for _, c := range []struct {
		dir         string
		maxExported int
	}{
		{".", -1},
		{filepath.Join("..", "redact"), -1},
		{filepath.Join("..", "logline"), -1},
		{filepath.Join("..", "..", "observe"), 20},
	} {
		t.Run(filepath.Base(c.dir), func(t *testing.T) { checkLayout(t, c.dir, c.maxExported) })
	}
}

func checkLayout(t *testing.T, dir string, maxExported int) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var exported []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), "\n"); n > 500 {
			t.Errorf("%s has %d lines, more than 500", name, n)
		}
		if strings.Contains(string(src), ".Tag.Get(") {
			t.Errorf("%s parses struct tags itself; use internal/structtag", name)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if lines := fset.Position(d.End()).Line - fset.Position(d.Pos()).Line; lines > 80 {
					t.Errorf("%s: %s is %d lines long, more than 80", name, d.Name.Name, lines)
				}
				if d.Name.IsExported() && d.Recv == nil {
					exported = append(exported, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							exported = append(exported, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, id := range s.Names {
							if !id.IsExported() {
								continue
							}
							exported = append(exported, id.Name)
							if d.Tok == token.VAR {
								t.Errorf("%s: exported variable %s can be changed by any importer", name, id.Name)
							}
						}
					}
				}
			}
		}
	}
	if maxExported >= 0 && len(exported) > maxExported {
		t.Errorf("%d exported names, want at most %d: %v", len(exported), maxExported, exported)
	}
	t.Logf("%d exported names", len(exported))
}
