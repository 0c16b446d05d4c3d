package vet

import (
	"go/ast"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"
)

// mcpwrapPrefix starts the import path of every mcpwrap package: a handler
// handed to one of their functions (gosdk.AddTool, gosdk.Tool, mcpgo.Tool,
// mcpgo.Typed…) runs inside mcpwrap's recovery.
const mcpwrapPrefix = "github.com/mcpwrap/mcpwrap/"

// origin is one server: the NewServer or NewMCPServer call that made it.
type origin struct {
	// guarded: something recovers its handlers' panics: mcpwrap attached
	// (gosdk.Attach, gosdk.Run, mcpgo.Attach), mcp-go's server.WithRecovery()
	// or a tool middleware among its options, options this package cannot
	// see (opts...), or the server leaves the package.
	guarded bool
}

// registration is one place a handler is registered.
type registration struct {
	servers []*origin
	known   bool // every server the call can register on was found
	wrapped bool // registered through an mcpwrap function
}

// serverGraph follows servers and handlers through the values a package
// gives its variables, fields, parameters and results, so that
// `mcp.AddTool(s, tool, h)` inside `func addTyped(s, …)` is traced to the
// NewServer call whose server reaches it, and `tool, h := GetIssue(d)` to
// the literal GetIssue returns.
type serverGraph struct {
	pass    *analysis.Pass
	hs      *Handlers
	origins map[*ast.CallExpr]*origin
	values  map[types.Object][]value
	params  map[*types.Var]param
	calls   map[*types.Func][]*ast.CallExpr
}

// value is the idx-th value of e (idx > 0 for a, b := f()).
type value struct {
	e   ast.Expr
	idx int
}

type param struct {
	fn  *types.Func
	idx int
}

// maxTrace bounds how many values, parameters and results a server or a
// handler is followed through.
const maxTrace = 8

// markBare sets Handler.Bare on the handlers no recovery runs around.
func (hs *Handlers) markBare(pass *analysis.Pass) {
	g := &serverGraph{pass: pass, hs: hs, origins: map[*ast.CallExpr]*origin{}, values: map[types.Object][]value{}, params: map[*types.Var]param{}, calls: map[*types.Func][]*ast.CallExpr{}}
	g.index()
	attachUnknown := false
	regs := map[ast.Node][]registration{}
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := typeutil.StaticCallee(pass.TypesInfo, call)
			if fn == nil || fn.Pkg() == nil {
				return true
			}
			if isFunc(fn, mcpwrapGoSDK, "Attach", "Run") || isFunc(fn, mcpwrapMCPGo, "Attach") {
				i := 0
				if fn.Name() == "Run" {
					i = 1
				}
				if i >= len(call.Args) {
					return true
				}
				srvs, known := g.servers(call.Args[i], 0, 0)
				for _, o := range srvs {
					o.guarded = true
				}
				attachUnknown = attachUnknown || !known
				return true
			}
			if strings.HasPrefix(fn.Pkg().Path(), mcpwrapPrefix) {
				for _, a := range call.Args {
					for _, h := range g.handlers(a, 0, 0) {
						regs[h] = append(regs[h], registration{wrapped: true})
					}
				}
				return true
			}
			srv, hexprs := registers(fn, call)
			if srv == nil {
				return true
			}
			srvs, known := g.servers(srv, 0, 0)
			for _, he := range hexprs {
				for _, h := range g.handlers(he, 0, 0) {
					regs[h] = append(regs[h], registration{servers: srvs, known: known})
				}
			}
			return true
		})
	}
	// A server that leaves the package may be attached where it goes.
	g.escapes()
	for _, h := range hs.List {
		if h.SDK == "go-sdk" && !hs.Wrapped {
			h.Bare = true // nothing in the package can attach mcpwrap
			continue
		}
		rs := regs[h.Node]
		h.Bare = len(rs) > 0 && !attachUnknown
		for _, r := range rs {
			if r.wrapped || !r.known || len(r.servers) == 0 {
				h.Bare = false
			}
			for _, o := range r.servers {
				if o.guarded {
					h.Bare = false
				}
			}
		}
	}
}

// registers returns the server and the handler arguments of an SDK
// registration call, or nil.
func registers(fn *types.Func, call *ast.CallExpr) (ast.Expr, []ast.Expr) {
	recv := func() ast.Expr {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
			return sel.X
		}
		return nil
	}
	switch {
	case isFunc(fn, gosdkMCP, "AddTool") && len(call.Args) == 3:
		return call.Args[0], call.Args[2:]
	case isMethod(fn, gosdkMCP, "Server", "AddTool", "AddPrompt", "AddResource", "AddResourceTemplate") && len(call.Args) == 2:
		return recv(), call.Args[1:]
	case isMethod(fn, mcpgoServer, "MCPServer", "AddTool") && len(call.Args) == 2:
		return recv(), call.Args[1:]
	case isMethod(fn, mcpgoServer, "MCPServer", "AddTools"):
		return recv(), call.Args
	}
	return nil, nil
}

// index records every value given to a variable or a field, the
// parameters of the package's functions and every call of them.
func (g *serverGraph) index() {
	info := g.pass.TypesInfo
	for fn := range g.hs.decls {
		sig := fn.Type().(*types.Signature)
		for i := range sig.Params().Len() {
			g.params[sig.Params().At(i)] = param{fn, i}
		}
	}
	lhsObj := func(e ast.Expr) types.Object {
		if o := assignedTo(info, e); o != nil {
			return o
		}
		if sel, ok := ast.Unparen(e).(*ast.SelectorExpr); ok {
			return info.Uses[sel.Sel] // a package's variable
		}
		return nil
	}
	assign := func(lhs []ast.Expr, rhs []ast.Expr) {
		for i, l := range lhs {
			o := lhsObj(l)
			if o == nil {
				continue
			}
			switch {
			case len(rhs) == len(lhs):
				g.values[o] = append(g.values[o], value{rhs[i], 0})
			case len(rhs) == 1:
				g.values[o] = append(g.values[o], value{rhs[0], i})
			}
		}
	}
	for _, f := range g.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.AssignStmt:
				assign(x.Lhs, x.Rhs)
			case *ast.ValueSpec:
				lhs := make([]ast.Expr, len(x.Names))
				for i, id := range x.Names {
					lhs[i] = id
				}
				assign(lhs, x.Values)
			case *ast.CompositeLit:
				st, _ := typeOf(info, x).(*types.Struct)
				if st == nil {
					return true
				}
				for i, el := range x.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok {
							if o := info.Uses[k]; o != nil {
								g.values[o] = append(g.values[o], value{kv.Value, 0})
							}
						}
					} else if i < st.NumFields() {
						g.values[st.Field(i)] = append(g.values[st.Field(i)], value{el, 0})
					}
				}
			case *ast.CallExpr:
				fn := typeutil.StaticCallee(info, x)
				if fn == nil {
					return true
				}
				if isFunc(fn, gosdkMCP, "NewServer") {
					g.origins[x] = &origin{}
				}
				if isFunc(fn, mcpgoServer, "NewMCPServer") {
					g.origins[x] = &origin{guarded: recoveringOptions(g.pass, x)}
				}
				if g.hs.decls[fn.Origin()] != nil {
					g.calls[fn.Origin()] = append(g.calls[fn.Origin()], x)
				}
			}
			return true
		})
	}
}

// typeOf is the struct type of a composite literal (through pointers and
// names), or nil.
func typeOf(info *types.Info, lit *ast.CompositeLit) types.Type {
	t := info.TypeOf(lit)
	if t == nil {
		return nil
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	return t.Underlying()
}

// recoveringOptions reports whether NewMCPServer's options may recover a
// tool handler's panic: server.WithRecovery(), a tool handler middleware
// (its own recover is not looked into), anything of mcpwrap's, or options
// passed on as opts....
func recoveringOptions(pass *analysis.Pass, call *ast.CallExpr) bool {
	if call.Ellipsis.IsValid() {
		return true
	}
	found := false
	for _, a := range call.Args[min(2, len(call.Args)):] {
		ast.Inspect(a, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				fn := typeutil.StaticCallee(pass.TypesInfo, c)
				if isFunc(fn, mcpgoServer, "WithRecovery", "WithToolHandlerMiddleware") || fn != nil && fn.Pkg() != nil && strings.HasPrefix(fn.Pkg().Path(), mcpwrapPrefix) {
					found = true
				}
			}
			return !found
		})
		if _, ok := ast.Unparen(a).(*ast.CallExpr); !ok {
			found = true // an option built elsewhere
		}
	}
	return found
}

// servers returns the servers e (its idx-th value) can be, and whether all
// of them were found.
func (g *serverGraph) servers(e ast.Expr, idx, depth int) ([]*origin, bool) {
	if depth > maxTrace {
		return nil, false
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.CallExpr:
		if o := g.origins[x]; o != nil {
			return []*origin{o}, true
		}
		return results(g, x, idx, depth, g.servers)
	case *ast.Ident, *ast.SelectorExpr:
		return object(g, x, depth, g.servers)
	}
	return nil, false
}

// handlers returns the package's handlers e can be.
func (g *serverGraph) handlers(e ast.Expr, idx, depth int) []ast.Node {
	if depth > maxTrace {
		return nil
	}
	if n := g.hs.handlerNode(g.pass, e); n != nil && idx == 0 {
		return []ast.Node{n}
	}
	var out []ast.Node
	collect := func(e ast.Expr, idx, depth int) ([]ast.Node, bool) { return g.handlers(e, idx, depth), true }
	switch x := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		if isNamed(g.pass.TypesInfo.TypeOf(x), mcpgoServer, "ServerTool") {
			if v := field(x, "Handler"); v != nil {
				out = g.handlers(v, 0, depth+1)
			}
		}
	case *ast.CallExpr:
		out, _ = results(g, x, idx, depth, collect)
	case *ast.Ident, *ast.SelectorExpr:
		out, _ = object(g, x, depth, collect)
	}
	return out
}

// results follows a call of a same-package function into the idx-th value
// of its return statements.
func results[T any](g *serverGraph, call *ast.CallExpr, idx, depth int, next func(ast.Expr, int, int) ([]T, bool)) ([]T, bool) {
	fn := typeutil.StaticCallee(g.pass.TypesInfo, call)
	if fn == nil {
		return nil, false
	}
	fd := g.hs.decls[fn.Origin()]
	if fd == nil {
		return nil, false
	}
	var out []T
	known := true
	ownReturns(fd.Body, func(ret *ast.ReturnStmt) {
		switch {
		case len(ret.Results) == fd.Type.Results.NumFields() && idx < len(ret.Results):
			o, k := next(ret.Results[idx], 0, depth+1)
			out, known = append(out, o...), known && k
		case len(ret.Results) == 1:
			o, k := next(ret.Results[0], idx, depth+1)
			out, known = append(out, o...), known && k
		default:
			known = false
		}
	})
	return out, known
}

// object follows a variable or a field into every value the package gives
// it, and a parameter of a declared function into the arguments of its
// calls.
func object[T any](g *serverGraph, e ast.Expr, depth int, next func(ast.Expr, int, int) ([]T, bool)) ([]T, bool) {
	info := g.pass.TypesInfo
	var o types.Object
	switch x := e.(type) {
	case *ast.Ident:
		o = info.Uses[x]
	case *ast.SelectorExpr:
		if s := info.Selections[x]; s != nil {
			if s.Kind() != types.FieldVal {
				return nil, false
			}
			o = s.Obj()
		} else {
			o = info.Uses[x.Sel]
		}
	}
	v, ok := o.(*types.Var)
	if !ok {
		return nil, false
	}
	var out []T
	known := true
	if p, ok := g.params[v]; ok {
		calls := g.calls[p.fn]
		if len(calls) == 0 {
			return nil, false
		}
		for _, c := range calls {
			if c.Ellipsis.IsValid() || p.idx >= len(c.Args) {
				known = false
				continue
			}
			r, k := next(c.Args[p.idx], 0, depth+1)
			out, known = append(out, r...), known && k
		}
		return out, known
	}
	vs := g.values[v]
	if len(vs) == 0 {
		return nil, false
	}
	for _, val := range vs {
		r, k := next(val.e, val.idx, depth+1)
		out, known = append(out, r...), known && k
	}
	return out, known
}

// escapes guards the servers that leave the package: given to a function
// of another package that is neither an SDK nor mcpwrap, or returned by an
// exported function of a package other than main.
func (g *serverGraph) escapes() {
	info := g.pass.TypesInfo
	isServer := func(t types.Type) bool { return isNamed(t, gosdkMCP, "Server") || isNamed(t, mcpgoServer, "MCPServer") }
	guard := func(e ast.Expr) {
		srvs, _ := g.servers(e, 0, 0)
		for _, o := range srvs {
			o.guarded = true
		}
	}
	for _, f := range g.pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := typeutil.StaticCallee(info, call)
			if fn == nil || fn.Pkg() == nil || fn.Pkg() == g.pass.Pkg {
				return true
			}
			switch p := fn.Pkg().Path(); {
			case p == gosdkMCP || p == mcpgoServer || p == mcpgoMCP || strings.HasPrefix(p, mcpwrapPrefix):
				return true
			}
			for _, a := range call.Args {
				if isServer(info.TypeOf(a)) {
					guard(a)
				}
			}
			return true
		})
	}
	if g.pass.Pkg.Name() == "main" {
		return
	}
	for fn, fd := range g.hs.decls {
		if !fn.Exported() {
			continue
		}
		ownReturns(fd.Body, func(ret *ast.ReturnStmt) {
			for _, r := range ret.Results {
				if isServer(info.TypeOf(r)) {
					guard(r)
				}
			}
		})
	}
}
