package vet

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"
)

func runPanic(pass *analysis.Pass, hs *Handlers, r *reporter) {
	fields := assignedFields(pass)
	for _, h := range hs.List {
		if !h.Bare || h.SDK == "mcp-go" && h.Kind != "tool" {
			continue
		}
		for _, b := range hs.syncBodies(pass, h) {
			fs := newFuncScan(pass, b.Body)
			inspect(b.Body, func(n ast.Node, stack []ast.Node) bool {
				switch n.(type) {
				case *ast.FuncLit, *ast.GoStmt:
					return false
				}
				what := fs.panics(n, stack, fields)
				if what == "" {
					return true
				}
				var sees string
				if h.SDK == "go-sdk" {
					sees = "go-sdk does not recover a handler's panic: the process and every session die, and the client sees the connection drop, not an error; return an error (typed tools: it becomes isError content), or register the tool through mcpwrap (gosdk.Attach(s, w) on this server, gosdk.AddTool, gosdk.Tool), whose recovery answers the call"
				} else {
					sees = "the server has neither mcpwrap attached nor server.WithRecovery(): at best mcp-go's transport catches it and answers JSON-RPC -32603 \"internal panic: <value>\", a protocol error carrying the panic's text instead of a result the model can act on; return a tool error (mcp.NewToolResultError), or attach mcpwrap (mcpgo.Attach(s, w)), whose recovery answers the call"
				}
				r.report(n.Pos(), fmt.Sprintf("%s can panic (%s): %s", where(b), what, sees))
				return true
			})
		}
	}
}

// syncBodies is h's body and the same-package functions it calls, up to
// maxDepth deep, not through a go statement or a function literal: a
// recovery around the handler would cover them.
func (hs *Handlers) syncBodies(pass *analysis.Pass, h *Handler) []*Body {
	return hs.reach(pass, []*Body{{Node: h.Node, Body: h.Body, Handler: h}}, map[ast.Node]bool{h.Node: true}, true)
}

// assignedFields is the set of struct fields the package gives a value
// anywhere: assigned, set in a composite literal, or addressed.
func assignedFields(pass *analysis.Pass) map[types.Object]bool {
	out := map[types.Object]bool{}
	field := func(e ast.Expr) {
		if sel, ok := ast.Unparen(e).(*ast.SelectorExpr); ok {
			if s := pass.TypesInfo.Selections[sel]; s != nil && s.Kind() == types.FieldVal {
				out[s.Obj()] = true
			}
		}
	}
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.AssignStmt:
				for _, l := range x.Lhs {
					field(l)
				}
			case *ast.UnaryExpr:
				if x.Op == token.AND {
					field(x.X)
				}
			case *ast.CompositeLit:
				st, _ := typeOf(pass.TypesInfo, x).(*types.Struct)
				if st == nil {
					return true
				}
				for i, el := range x.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok && pass.TypesInfo.Uses[k] != nil {
							out[pass.TypesInfo.Uses[k]] = true
						}
					} else if i < st.NumFields() {
						out[st.Field(i)] = true
					}
				}
			}
			return true
		})
	}
	return out
}

// funcScan is what one function body says about its local variables: the
// values it gives them, which it takes the length of, compares with nil or
// takes the address of.
type funcScan struct {
	pass    *analysis.Pass
	values  map[types.Object][]ast.Expr
	bare    map[types.Object]bool // declared var m T without a value
	checked map[types.Object]bool // len(x), cap(x), x == nil, x != nil, &x
	addr    map[types.Object]bool // &x
	locals  map[types.Object]bool
	decoded map[types.Object]bool // json.Unmarshal(b, &x), x.Decode-d into
	okForms map[string]bool       // v, ok := e.(T) seen, by "e.(T)"
}

func newFuncScan(pass *analysis.Pass, body *ast.BlockStmt) *funcScan {
	fs := &funcScan{pass: pass, values: map[types.Object][]ast.Expr{}, bare: map[types.Object]bool{}, checked: map[types.Object]bool{}, addr: map[types.Object]bool{}, decoded: map[types.Object]bool{}, okForms: map[string]bool{}, locals: map[types.Object]bool{}}
	info := pass.TypesInfo
	obj := func(e ast.Expr) types.Object {
		if id, ok := ast.Unparen(e).(*ast.Ident); ok {
			if o := info.Defs[id]; o != nil {
				return o
			}
			return info.Uses[id]
		}
		return nil
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			if ta, ok := commaOKAssert(x.Lhs, x.Rhs); ok {
				fs.okForms[types.ExprString(ta)] = true
			}
			for i, l := range x.Lhs {
				o := obj(l)
				if o == nil {
					continue
				}
				if x.Tok == token.DEFINE && info.Defs[l.(*ast.Ident)] != nil {
					fs.locals[o] = true
				}
				if len(x.Rhs) == len(x.Lhs) {
					fs.values[o] = append(fs.values[o], x.Rhs[i])
				} else {
					fs.values[o] = append(fs.values[o], nil) // one of a call's results: unknown
				}
			}
		case *ast.ValueSpec:
			if ta, ok := commaOKAssert(nil, x.Values); ok && len(x.Names) == 2 {
				fs.okForms[types.ExprString(ta)] = true
			}
			for i, id := range x.Names {
				o := info.Defs[id]
				if o == nil {
					continue
				}
				fs.locals[o] = true
				switch {
				case len(x.Values) == 0:
					fs.bare[o] = true
				case len(x.Values) == len(x.Names):
					fs.values[o] = append(fs.values[o], x.Values[i])
				default:
					fs.values[o] = append(fs.values[o], nil)
				}
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{x.Key, x.Value} {
				if o := obj(e); o != nil {
					fs.values[o] = append(fs.values[o], nil)
				}
			}
		case *ast.CallExpr:
			if fn := callee(pass, x); (isFunc(fn, "encoding/json", "Unmarshal") || isMethod(fn, "encoding/json", "Decoder", "Decode")) && len(x.Args) > 0 {
				if u, ok := ast.Unparen(x.Args[len(x.Args)-1]).(*ast.UnaryExpr); ok && u.Op == token.AND {
					if o := obj(u.X); o != nil {
						fs.decoded[o] = true
					}
				}
			}
			if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok && len(x.Args) == 1 {
				if b, ok := info.Uses[id].(*types.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
					if o := obj(x.Args[0]); o != nil {
						fs.checked[o] = true
					}
				}
			}
		case *ast.BinaryExpr:
			if (x.Op == token.EQL || x.Op == token.NEQ) && (isNil(pass, x.X) || isNil(pass, x.Y)) {
				for _, e := range []ast.Expr{x.X, x.Y} {
					if o := obj(e); o != nil {
						fs.checked[o] = true
					}
				}
			}
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				if o := obj(x.X); o != nil {
					fs.checked[o], fs.addr[o] = true, true
				}
			}
		}
		return true
	})
	return fs
}

// panics names what n does that panics at run time, or "".
func (fs *funcScan) panics(n ast.Node, stack []ast.Node, fields map[types.Object]bool) string {
	info := fs.pass.TypesInfo
	switch x := n.(type) {
	case *ast.CallExpr:
		if id, ok := ast.Unparen(x.Fun).(*ast.Ident); ok {
			if b, ok := info.Uses[id].(*types.Builtin); ok && b.Name() == "panic" {
				return "a panic call"
			}
		}
	case *ast.TypeAssertExpr:
		if x.Type == nil || commaOK(x, stack) || fs.okForms[types.ExprString(x)] || !fs.fromOutside(x.X, 0) {
			return ""
		}
		return "the type assertion " + types.ExprString(x) + " without ok"
	case *ast.IndexExpr:
		if w := fs.nilMapWrite(x, stack, fields); w != "" {
			return w
		}
		return fs.constIndex(x)
	}
	return ""
}

// commaOKAssert returns the assertion of v, ok := e.(T).
func commaOKAssert(lhs, rhs []ast.Expr) (*ast.TypeAssertExpr, bool) {
	if len(rhs) != 1 || lhs != nil && len(lhs) != 2 {
		return nil, false
	}
	ta, ok := ast.Unparen(rhs[0]).(*ast.TypeAssertExpr)
	return ta, ok && ta.Type != nil
}

// fromOutside reports whether e is data the program does not control the
// shape of, which a type assertion may find of another type: the tool's
// arguments (mcp-go's req.GetArguments(), req.Params.Arguments), or what
// json decoded into a local map or interface, indexed or as is. A value
// the program stored itself (a sync.Map, a context value, a slice it
// filled after a type switch) is left alone: its assertions hold by
// construction.
func (fs *funcScan) fromOutside(e ast.Expr, depth int) bool {
	info := fs.pass.TypesInfo
	if depth > 3 {
		return false
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.IndexExpr:
		return fs.fromOutside(x.X, depth+1)
	case *ast.CallExpr:
		return isMethod(callee(fs.pass, x), mcpgoMCP, "CallToolRequest", "GetArguments")
	case *ast.SelectorExpr:
		if x.Sel.Name != "Arguments" {
			return false
		}
		p, ok := ast.Unparen(x.X).(*ast.SelectorExpr)
		return ok && p.Sel.Name == "Params" && isNamed(info.TypeOf(p.X), mcpgoMCP, "CallToolRequest")
	case *ast.TypeAssertExpr:
		return fs.fromOutside(x.X, depth+1)
	case *ast.Ident:
		o := info.Uses[x]
		if o == nil || !fs.locals[o] {
			return false
		}
		if fs.decoded[o] {
			return true
		}
		for _, v := range fs.values[o] {
			if v != nil && fs.fromOutside(v, depth+1) {
				return true
			}
		}
	}
	return false
}

func commaOK(x *ast.TypeAssertExpr, stack []ast.Node) bool {
	if len(stack) == 0 {
		return false
	}
	switch p := stack[len(stack)-1].(type) {
	case *ast.AssignStmt:
		return len(p.Lhs) == 2 && len(p.Rhs) == 1 && ast.Unparen(p.Rhs[0]) == x
	case *ast.ValueSpec:
		return len(p.Names) == 2 && len(p.Values) == 1 && ast.Unparen(p.Values[0]) == x
	case *ast.ParenExpr:
		return commaOK(x, stack[:len(stack)-1])
	}
	return false
}

// nilMapWrite reports m[k] = v (or m[k]++, m[k] op= v) on a map that is
// nil: a local declared var m map[K]V and never given a value, or an
// unexported field of this package's struct type that nothing sets.
func (fs *funcScan) nilMapWrite(x *ast.IndexExpr, stack []ast.Node, fields map[types.Object]bool) string {
	if len(stack) == 0 {
		return ""
	}
	written := false
	switch p := stack[len(stack)-1].(type) {
	case *ast.AssignStmt:
		for _, l := range p.Lhs {
			written = written || ast.Unparen(l) == x
		}
	case *ast.IncDecStmt:
		written = ast.Unparen(p.X) == x
	}
	if !written {
		return ""
	}
	if _, ok := fs.pass.TypesInfo.TypeOf(x.X).Underlying().(*types.Map); !ok {
		return ""
	}
	info := fs.pass.TypesInfo
	switch m := ast.Unparen(x.X).(type) {
	case *ast.Ident:
		o := info.Uses[m]
		if o != nil && fs.bare[o] && len(fs.values[o]) == 0 && !fs.addr[o] {
			return "a write to the nil map " + m.Name + ", declared without make"
		}
	case *ast.SelectorExpr:
		s := info.Selections[m]
		if s == nil || s.Kind() != types.FieldVal {
			return ""
		}
		f := s.Obj()
		if f.Exported() || f.Pkg() != fs.pass.Pkg || fields[f] {
			return ""
		}
		return "a write to the map field " + f.Name() + ", which nothing in the package makes"
	}
	return ""
}

// constIndex reports x[k], k a constant, on a local slice the function
// never takes the length of nor compares with nil, unless every value it
// is given is long enough (a literal of more than k elements; for k = 0,
// strings.Split's result, never empty); or on strings.Split(…)[k] (k > 0)
// and strings.Fields(…)[k].
func (fs *funcScan) constIndex(x *ast.IndexExpr) string {
	info := fs.pass.TypesInfo
	tv, ok := info.Types[x.Index]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.Int {
		return ""
	}
	k, ok := constant.Int64Val(tv.Value)
	if !ok {
		return ""
	}
	if _, ok := info.TypeOf(x.X).Underlying().(*types.Slice); !ok {
		return ""
	}
	long := func(e ast.Expr) bool {
		switch v := ast.Unparen(e).(type) {
		case *ast.CompositeLit:
			return int64(len(v.Elts)) > k
		case *ast.CallExpr:
			fn := typeutil.StaticCallee(info, v)
			if k == 0 && isFunc(fn, "strings", "Split", "SplitAfter") {
				return true
			}
			if k == 0 && isFunc(fn, "strings", "SplitN", "SplitAfterN") && len(v.Args) == 3 {
				n, ok := info.Types[v.Args[2]]
				return ok && n.Value != nil && constant.Sign(n.Value) != 0
			}
		}
		return false
	}
	what := fmt.Sprintf("the index %s with no length check", types.ExprString(x))
	switch s := ast.Unparen(x.X).(type) {
	case *ast.Ident:
		o := info.Uses[s]
		if o == nil || !fs.locals[o] || fs.checked[o] {
			return ""
		}
		for _, v := range fs.values[o] {
			if v == nil || long(v) {
				if v == nil {
					return "" // a value this scan does not see
				}
				continue
			}
			return what
		}
	case *ast.CallExpr:
		fn := typeutil.StaticCallee(info, s)
		if isFunc(fn, "strings", "Split", "SplitN", "SplitAfter", "SplitAfterN", "Fields") && !long(s) {
			return what
		}
	}
	return ""
}
