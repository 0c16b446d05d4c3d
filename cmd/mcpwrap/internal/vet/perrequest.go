package vet

import (
	"fmt"
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"
)

// PerRequest: a Wrapper built inside a per-request server factory.
var PerRequest = &analysis.Analyzer{
	Name: "perrequest",
	Doc:  "report wrap.New inside a function that runs per HTTP request: build the Wrapper once",
	Run:  runPerRequest,
}

// runPerRequest finds the functions that run once per HTTP request — a
// go-sdk getServer func(*http.Request) *mcp.Server, an
// func(http.ResponseWriter, *http.Request) handler — and the same-package
// functions they call, up to maxDepth calls deep, and reports where they
// build a Wrapper. It needs no handler in the package: the factory is often
// in main, the handlers elsewhere.
func runPerRequest(pass *analysis.Pass) (any, error) {
	uses := false
	for _, imp := range pass.Pkg.Imports() {
		if imp.Path() == mcpwrapWrap || imp.Path() == mcpwrapMCPGo {
			uses = true
		}
	}
	if !uses {
		return nil, nil
	}
	decls := map[*types.Func]*ast.FuncDecl{}
	type factory struct {
		node ast.Node
		body *ast.BlockStmt
		what string
	}
	var roots []factory
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					decls[fn] = fd
					if what := perRequest(fn.Type().(*types.Signature)); what != "" {
						roots = append(roots, factory{fd, fd.Body, what})
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if fl, ok := n.(*ast.FuncLit); ok {
				if sig, ok := pass.TypesInfo.TypeOf(fl).(*types.Signature); ok {
					if what := perRequest(sig); what != "" {
						roots = append(roots, factory{fl, fl.Body, what})
					}
				}
			}
			return true
		})
	}
	r := newReporter(pass, "perrequest")
	for _, root := range roots {
		seen := map[ast.Node]bool{root.node: true}
		var walk func(body *ast.BlockStmt, depth int, via string)
		walk = func(body *ast.BlockStmt, depth int, via string) {
			ast.Inspect(body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				fn := typeutil.StaticCallee(pass.TypesInfo, call)
				switch {
				case fn == nil:
				case isFunc(fn, mcpwrapWrap, "New"):
					r.report(call.Pos(), fmt.Sprintf("%s builds a new Wrapper (%s.%s) on every HTTP request%s: each gets fresh limits, loop guard, breakers and instruments, so no limit holds and every request pays the construction; build the Wrapper once, outside the factory, and attach that one (gosdk.Attach(s, w), mcpgo.Attach(s, w))", root.what, fn.Pkg().Name(), fn.Name(), via))
				case decls[fn.Origin()] != nil && depth < maxDepth && !seen[decls[fn.Origin()]]:
					fd := decls[fn.Origin()]
					seen[fd] = true
					walk(fd.Body, depth+1, " (in "+fd.Name.Name+", which it calls)")
				}
				return true
			})
		}
		walk(root.body, 0, "")
	}
	return nil, nil
}

// perRequest says what kind of per-request function sig is, or "".
func perRequest(sig *types.Signature) string {
	p, res := sig.Params(), sig.Results()
	switch {
	case p.Len() == 1 && res.Len() == 1 && isNamed(p.At(0).Type(), "net/http", "Request") && isNamed(res.At(0).Type(), gosdkMCP, "Server"):
		return "this server factory (func(*http.Request) *mcp.Server, run per request by go-sdk's HTTP handler)"
	case p.Len() == 2 && res.Len() == 0 && isNamed(p.At(0).Type(), "net/http", "ResponseWriter") && isNamed(p.At(1).Type(), "net/http", "Request"):
		return "this HTTP handler"
	}
	return ""
}
