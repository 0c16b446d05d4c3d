// Command surface counts the exported names of mcpwrap's public packages:
// every exported func, type, const and var at package level, plus every
// exported method of an exported type, over every module, leaving out
// internal/, examples/, cmd/, tools/, scripts/ and testdata/.
//
// What it leaves out, and why: the fields of exported structs and the
// methods of exported interfaces (they are part of their type, one name
// each in api/*.txt), and the exported methods of unexported types. Those
// implement an interface (error's Error, io.Writer's Write, an SDK's
// hook): a user cannot name the type, so they add nothing to learn. A
// count that takes them in — the issue that set the 350 bound did — is
// the last line, "with methods of unexported types", for comparison.
//
//	go run ./scripts/surface          # one line per package, then the total
//	go run ./scripts/surface -max 350 # exit 1 above 350
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	root := flag.String("root", ".", "repository root")
	max := flag.Int("max", 0, "exit 1 when the total exceeds this (0: no limit)")
	names := flag.Bool("names", false, "list every name")
	flag.Parse()
	counts, hidden, err := count(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "surface:", err)
		os.Exit(2)
	}
	dirs := make([]string, 0, len(counts))
	for d := range counts {
		dirs = append(dirs, d)
	}
	sort.Slice(dirs, func(i, j int) bool { return len(counts[dirs[i]]) > len(counts[dirs[j]]) })
	total := 0
	for _, d := range dirs {
		fmt.Printf("%4d %s\n", len(counts[d]), d)
		if *names {
			sort.Strings(counts[d])
			for _, n := range counts[d] {
				fmt.Printf("       %s\n", n)
			}
		}
		total += len(counts[d])
	}
	fmt.Printf("%4d total\n", total)
	fmt.Printf("%4d with methods of unexported types (%d of them)\n", total+hidden, hidden)
	if *max > 0 && total > *max {
		fmt.Fprintf(os.Stderr, "surface: %d exported names, more than %d\n", total, *max)
		os.Exit(1)
	}
}

var skip = map[string]bool{"internal": true, "examples": true, "cmd": true, "tools": true, "scripts": true, "testdata": true}

func count(root string) (map[string][]string, int, error) {
	hidden := 0
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root && (skip[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		fset := token.NewFileSet()
		pkgs, err := parser.ParseDir(fset, path, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for name, p := range pkgs {
			if name == "main" {
				continue
			}
			n, h := exported(p)
			hidden += h
			if len(n) > 0 {
				out[rel] = append(out[rel], n...)
			}
		}
		return nil
	})
	return out, hidden, err
}

func exported(p *ast.Package) (out []string, hidden int) {
	types := map[string]bool{}
	for _, f := range p.Files {
		for _, decl := range f.Decls {
			if g, ok := decl.(*ast.GenDecl); ok {
				for _, s := range g.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						types[s.Name.Name] = s.Name.IsExported()
						if s.Name.IsExported() {
							out = append(out, "type "+s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								out = append(out, g.Tok.String()+" "+n.Name)
							}
						}
					}
				}
			}
		}
	}
	for _, f := range p.Files {
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() {
				continue
			}
			if fn.Recv == nil {
				out = append(out, "func "+fn.Name.Name)
				continue
			}
			if r := recvName(fn.Recv.List[0].Type); types[r] {
				out = append(out, "method "+r+"."+fn.Name.Name)
			} else {
				hidden++
			}
		}
	}
	return out, hidden
}

func recvName(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}
