package vet

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/analysis"
)

// secrets knows which values of a package hold a secret: by their names
// (secretName), by what they were given (os.Getenv of a secret-named
// variable, such as GITHUB_PERSONAL_ACCESS_TOKEN), and which same-package
// functions return one (func (c *client) authHeader() string { return
// "Bearer " + c.cfg.APIKey }).
type secrets struct {
	pass    *analysis.Pass
	byValue map[types.Object]bool
	funcs   map[*types.Func]bool
}

// assignedTo is the variable or struct field the expression e on the left
// of an assignment names, or nil.
func assignedTo(info *types.Info, e ast.Expr) types.Object {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if o := info.Defs[x]; o != nil {
			return o
		}
		return info.Uses[x]
	case *ast.SelectorExpr:
		if sel := info.Selections[x]; sel != nil && sel.Kind() == types.FieldVal {
			return sel.Obj()
		}
	}
	return nil
}

func newSecrets(pass *analysis.Pass, hs *Handlers) *secrets {
	s := &secrets{pass: pass, byValue: map[types.Object]bool{}, funcs: map[*types.Func]bool{}}
	info := pass.TypesInfo
	give := func(o types.Object, e ast.Expr) {
		if o != nil && s.envSecret(e) {
			s.byValue[o] = true
		}
	}
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.AssignStmt:
				if len(x.Lhs) == len(x.Rhs) {
					for i := range x.Lhs {
						give(assignedTo(info, x.Lhs[i]), x.Rhs[i])
					}
				}
			case *ast.ValueSpec:
				if len(x.Names) == len(x.Values) {
					for i, id := range x.Names {
						give(info.Defs[id], x.Values[i])
					}
				}
			case *ast.KeyValueExpr:
				if k, ok := x.Key.(*ast.Ident); ok {
					if v, ok := info.Uses[k].(*types.Var); ok && v.IsField() {
						give(v, x.Value)
					}
				}
			}
			return true
		})
	}
	for changed, round := true, 0; changed && round <= maxDepth; round++ {
		changed = false
		for fn, fd := range hs.decls {
			if s.funcs[fn] {
				continue
			}
			res := fn.Type().(*types.Signature).Results()
			if res.Len() == 0 || !secretType(res.At(0).Type()) {
				continue
			}
			ownReturns(fd.Body, func(ret *ast.ReturnStmt) {
				if len(ret.Results) > 0 && !s.funcs[fn] && s.in(ret.Results[0]) != nil {
					s.funcs[fn], changed = true, true
				}
			})
		}
	}
	return s
}

// envSecret reports whether e is os.Getenv or os.LookupEnv of a variable
// whose name says secret, as is or trimmed.
func (s *secrets) envSecret(e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return false
	}
	fn := callee(s.pass, call)
	switch {
	case isFunc(fn, "os", "Getenv", "LookupEnv"):
		tv, ok := s.pass.TypesInfo.Types[call.Args[0]]
		return ok && tv.Value != nil && tv.Value.Kind() == constant.String && secretName(constant.StringVal(tv.Value))
	case isFunc(fn, "strings", "TrimSpace", "Trim", "TrimPrefix", "TrimSuffix"):
		return s.envSecret(call.Args[0])
	}
	return false
}

// in finds a secret in e, looking through string concatenation,
// conversions, fmt.Sprint* and the package's functions that return one;
// a struct with a secret field that fmt prints whole (%v, %+v: it has no
// String or Error method) counts.
func (s *secrets) in(e ast.Expr) ast.Expr {
	info := s.pass.TypesInfo
	switch x := ast.Unparen(e).(type) {
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return nil
		}
		if v := s.in(x.X); v != nil {
			return v
		}
		return s.in(x.Y)
	case *ast.CallExpr:
		fn := callee(s.pass, x)
		if isFunc(fn, "fmt", "Sprintf", "Sprint", "Sprintln") {
			for _, a := range x.Args {
				if v := s.in(a); v != nil {
					return v
				}
			}
			return nil
		}
		if tv, ok := info.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
			return s.in(x.Args[0])
		}
		if s.envSecret(x) || fn != nil && s.funcs[fn.Origin()] {
			return x
		}
	case *ast.Ident:
		if v, ok := info.Uses[x].(*types.Var); ok && (s.byValue[v] || secretName(x.Name) && secretType(v.Type())) {
			return x
		}
		if s.printsSecret(info.TypeOf(x)) {
			return x
		}
	case *ast.SelectorExpr:
		if sel := info.Selections[x]; sel != nil && sel.Kind() == types.FieldVal && s.byValue[sel.Obj()] {
			return x
		}
		if _, ok := info.Uses[x.Sel].(*types.Var); ok && secretName(x.Sel.Name) && secretType(info.TypeOf(x)) {
			return x
		}
		if s.printsSecret(info.TypeOf(x)) {
			return x
		}
	}
	return nil
}

// printsSecret reports whether fmt prints a value of type t with a secret
// in it: a struct (or a pointer to one) with a secret field, and no
// String, Error or Format method to print it otherwise.
func (s *secrets) printsSecret(t types.Type) bool {
	if t == nil {
		return false
	}
	for _, m := range []string{"String", "Error", "Format"} {
		if obj, _, _ := types.LookupFieldOrMethod(t, true, nil, m); obj != nil {
			if _, ok := obj.(*types.Func); ok {
				return false
			}
		}
	}
	u := t.Underlying()
	if p, ok := u.(*types.Pointer); ok {
		u = p.Elem().Underlying()
	}
	st, ok := u.(*types.Struct)
	if !ok {
		return false
	}
	for i := range st.NumFields() {
		f := st.Field(i)
		if secretType(f.Type()) && (secretName(f.Name()) || s.byValue[f]) {
			return true
		}
	}
	return false
}
