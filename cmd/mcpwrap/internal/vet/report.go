package vet

import (
	"go/ast"
	"go/token"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// ignorePrefix starts a suppression comment: //mcpwrap:ignore <check> <reason>,
// on the finding's line or the line above it. <check> may be a
// comma-separated list; a directive without a reason suppresses nothing.
const ignorePrefix = "//mcpwrap:ignore"

// reporter reports one check's findings once per position, honouring
// //mcpwrap:ignore.
type reporter struct {
	pass    *analysis.Pass
	check   string
	seen    map[token.Pos]bool
	ignored map[string]map[int]bool // file name → suppressed lines
}

func newReporter(pass *analysis.Pass, check string) *reporter {
	r := &reporter{pass: pass, check: check, seen: map[token.Pos]bool{}, ignored: map[string]map[int]bool{}}
	for _, f := range pass.Files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if !strings.HasPrefix(c.Text, ignorePrefix) {
					continue
				}
				fields := strings.Fields(strings.TrimPrefix(c.Text, ignorePrefix))
				if len(fields) < 2 || !names(fields[0], check) {
					continue
				}
				p := pass.Fset.Position(c.Slash)
				if r.ignored[p.Filename] == nil {
					r.ignored[p.Filename] = map[int]bool{}
				}
				r.ignored[p.Filename][p.Line] = true
				r.ignored[p.Filename][p.Line+1] = true
			}
		}
	}
	return r
}

func names(list, check string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == check || c == "all" {
			return true
		}
	}
	return false
}

func (r *reporter) report(pos token.Pos, msg string) {
	if r.seen[pos] {
		return
	}
	r.seen[pos] = true
	p := r.pass.Fset.Position(pos)
	if r.ignored[p.Filename][p.Line] {
		return
	}
	r.pass.Report(analysis.Diagnostic{Pos: pos, Category: r.check, Message: r.check + ": " + msg})
}

// where names the code a finding is in: the handler, or the helper and the
// handler that calls it.
func where(b *Body) string {
	if b.Depth == 0 {
		return b.Handler.Subject()
	}
	name := "a helper"
	if fd, ok := b.Node.(*ast.FuncDecl); ok {
		name = fd.Name.Name
	}
	return name + " (called by " + b.Handler.Subject() + ")"
}

// inspect walks n like ast.Inspect and gives f the enclosing nodes.
func inspect(n ast.Node, f func(n ast.Node, stack []ast.Node) bool) {
	var stack []ast.Node
	ast.Inspect(n, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		ok := f(n, stack)
		if ok {
			stack = append(stack, n)
		}
		return ok
	})
}

// ownReturns calls f with the return statements of the function whose body
// is body, not those of function literals inside it.
func ownReturns(body *ast.BlockStmt, f func(*ast.ReturnStmt)) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			f(n)
		}
		return true
	})
}
