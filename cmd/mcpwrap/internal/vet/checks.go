package vet

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"
)

// maskedSentence is the sentence errmap.ToResult gives the model for an
// internal error (errs/result.go, modelMessage).
const maskedSentence = `internal error in %s (call id …); the details are in the server log`

func newCheck(name, doc string, run func(*analysis.Pass, *Handlers, *reporter)) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:     name,
		Doc:      doc,
		Requires: []*analysis.Analyzer{HandlersAnalyzer},
		Run: func(pass *analysis.Pass) (any, error) {
			hs := pass.ResultOf[HandlersAnalyzer].(*Handlers)
			if len(hs.List) == 0 {
				return nil, nil
			}
			run(pass, hs, newReporter(pass, name))
			return nil, nil
		},
	}
}

// callee is the function or method a call calls, or nil.
func callee(pass *analysis.Pass, call *ast.CallExpr) *types.Func {
	fn, _ := typeutil.Callee(pass.TypesInfo, call).(*types.Func)
	return fn
}

func isFunc(fn *types.Func, pkg string, names ...string) bool {
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != pkg {
		return false
	}
	if sig := fn.Type().(*types.Signature); sig.Recv() != nil {
		return false
	}
	for _, n := range names {
		if fn.Name() == n {
			return true
		}
	}
	return false
}

func recvNamed(fn *types.Func) *types.Named {
	if fn == nil {
		return nil
	}
	sig := fn.Type().(*types.Signature)
	if sig.Recv() == nil {
		return nil
	}
	t := types.Unalias(sig.Recv().Type())
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	n, _ := t.(*types.Named)
	return n
}

func isMethod(fn *types.Func, pkg, typ string, names ...string) bool {
	n := recvNamed(fn)
	if n == nil || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != pkg || n.Obj().Name() != typ {
		return false
	}
	for _, m := range names {
		if fn.Name() == m {
			return true
		}
	}
	return false
}

func callName(fn *types.Func) string {
	if n := recvNamed(fn); n != nil {
		return n.Obj().Name() + "." + fn.Name()
	}
	if fn.Pkg() != nil {
		return fn.Pkg().Name() + "." + fn.Name()
	}
	return fn.Name()
}

// ErrText: check 1, an error's text returned as a successful result.
var ErrText = newCheck("errtext", "report an error's text returned in a tool result without isError", runErrText)

func runErrText(pass *analysis.Pass, hs *Handlers, r *reporter) {
	for _, b := range hs.Bodies {
		inspect(b.Body, func(n ast.Node, stack []ast.Node) bool {
			var text ast.Expr
			var how string
			switch x := n.(type) {
			case *ast.CallExpr:
				fn := callee(pass, x)
				switch {
				case isFunc(fn, mcpgoMCP, "NewToolResultText") && len(x.Args) == 1:
					text, how = x.Args[0], "mcp.NewToolResultText"
				case isFunc(fn, mcpgoMCP, "NewToolResultStructured") && len(x.Args) == 2:
					text, how = x.Args[1], "mcp.NewToolResultStructured"
				case isFunc(fn, mcpgoMCP, "NewTextContent") && len(x.Args) == 1 && inSuccessResult(pass, stack):
					text, how = x.Args[0], "a CallToolResult without IsError"
				}
			case *ast.CompositeLit:
				t := pass.TypesInfo.TypeOf(x)
				if (isNamed(t, gosdkMCP, "TextContent") || isNamed(t, mcpgoMCP, "TextContent")) && inSuccessResult(pass, stack) {
					text, how = field(x, "Text"), "a CallToolResult without IsError"
				}
			}
			if text != nil && hasErrText(pass, text) && !markedErrorLater(pass, b.Body, stack) {
				fix := "use mcp.NewToolResultError(…) or return the error"
				if b.Handler.SDK == "go-sdk" {
					fix = "set IsError: true, or return the error (the SDK sets isError)"
				}
				r.report(text.Pos(), fmt.Sprintf("%s puts an error's text into a successful result (%s, isError false): the model reads the failure as data and goes on with it; %s", where(b), how, fix))
			}
			return true
		})
	}
}

// markedErrorLater reports whether the result being built is assigned to a
// variable that the function then marks as an error: res :=
// mcp.NewToolResultText(err.Error()) followed by res.IsError = true (or
// go-sdk's res.SetError(err)).
func markedErrorLater(pass *analysis.Pass, body *ast.BlockStmt, stack []ast.Node) bool {
	var objs []types.Object
	for i := len(stack) - 1; i >= 0 && objs == nil; i-- {
		switch x := stack[i].(type) {
		case *ast.FuncLit:
			return false
		case *ast.AssignStmt:
			for _, l := range x.Lhs {
				if id, ok := l.(*ast.Ident); ok {
					if o := pass.TypesInfo.ObjectOf(id); o != nil {
						objs = append(objs, o)
					}
				}
			}
			if objs == nil {
				return false
			}
		case *ast.ValueSpec:
			for _, id := range x.Names {
				if o := pass.TypesInfo.ObjectOf(id); o != nil {
					objs = append(objs, o)
				}
			}
		}
	}
	isObj := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		if !ok {
			return false
		}
		o := pass.TypesInfo.Uses[id]
		for _, want := range objs {
			if o == want {
				return true
			}
		}
		return false
	}
	marked := false
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			for i, l := range x.Lhs {
				sel, ok := l.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name != "IsError" || !isObj(sel.X) || i >= len(x.Rhs) {
					continue
				}
				tv := pass.TypesInfo.Types[x.Rhs[i]]
				if tv.Value == nil || tv.Value.Kind() != constant.Bool || constant.BoolVal(tv.Value) {
					marked = true
				}
			}
		case *ast.CallExpr:
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "SetError" && isObj(sel.X) {
				marked = true
			}
		}
		return !marked
	})
	return marked
}

// inSuccessResult reports whether the innermost CallToolResult literal
// around a node lacks IsError (or sets it to a constant false).
func inSuccessResult(pass *analysis.Pass, stack []ast.Node) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		switch x := stack[i].(type) {
		case *ast.FuncLit:
			return false
		case *ast.CompositeLit:
			t := pass.TypesInfo.TypeOf(x)
			if !isNamed(t, gosdkMCP, "CallToolResult") && !isNamed(t, mcpgoMCP, "CallToolResult") {
				continue
			}
			v := field(x, "IsError")
			if v == nil {
				return true
			}
			tv := pass.TypesInfo.Types[v]
			return tv.Value != nil && tv.Value.Kind() == constant.Bool && !constant.BoolVal(tv.Value)
		}
	}
	return false
}

func field(lit *ast.CompositeLit, name string) ast.Expr {
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == name {
				return kv.Value
			}
		}
	}
	return nil
}

// hasErrText reports whether e contains err.Error() or an error formatted
// with fmt.Sprint*.
func hasErrText(pass *analysis.Pass, e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if found {
			return false
		}
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Error" && len(x.Args) == 0 && implementsError(pass.TypesInfo.TypeOf(sel.X)) {
				found = true
				return false
			}
			if fn := callee(pass, x); isFunc(fn, "fmt", "Sprintf", "Sprint", "Sprintln") {
				for _, a := range x.Args {
					if t := pass.TypesInfo.TypeOf(a); t != nil && implementsError(t) && !isStringish(t) {
						found = true
						return false
					}
				}
			}
		}
		return true
	})
	return found
}

func isStringish(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// NilResult: check 2, return nil, nil.
var NilResult = newCheck("nilresult", "report handlers that return nil, nil", runNilResult)

func runNilResult(pass *analysis.Pass, hs *Handlers, r *reporter) {
	for _, h := range hs.List {
		if h.Sig.Results().Len() != 2 {
			continue
		}
		if _, ok := types.Unalias(h.Sig.Results().At(0).Type()).(*types.Pointer); !ok {
			continue
		}
		hs.nilReturns(pass, h.Body, func(ret *ast.ReturnStmt, helper string) {
			var sees string
			switch {
			case h.SDK == "mcp-go" && h.Kind == "tool":
				sees = fmt.Sprintf("mcp-go answers JSON-RPC -32603 \"tool '%s' handler returned no result\" (mcpwrap: `%s`)", nameOr(h.Name, "x"), fmt.Sprintf(maskedSentence, h.Subject()))
			case h.SDK == "go-sdk":
				sees = `go-sdk sends "result": null, which clients drop: the call hangs until the client's own timeout`
			default:
				sees = fmt.Sprintf("mcp-go sends \"result\": null, neither an answer nor an error (mcpwrap: JSON-RPC -32603 `%s`)", fmt.Sprintf(maskedSentence, h.Subject()))
			}
			fix := "return a result (e.g. mcp.NewToolResultText(\"…\")) or an error"
			if h.SDK == "go-sdk" {
				fix = "return &mcp.CallToolResult{…} or an error"
			}
			if h.Kind != "tool" {
				fix = "return a result or an error"
			}
			who := h.Subject()
			if helper != "" {
				who = helper + " (whose result " + h.Subject() + " returns)"
			}
			r.report(ret.Pos(), fmt.Sprintf("%s returns nil, nil: %s; %s", who, sees, fix))
		}, funcType(h.Node), "", 0)
	}
}

// nilReturns calls f with each return nil, nil of body and of the
// same-package helpers whose call the body returns as is (return
// s.render(…)), up to maxDepth calls deep; helper names the function the
// return is in ("" for the handler).
func (hs *Handlers) nilReturns(pass *analysis.Pass, body *ast.BlockStmt, f func(ret *ast.ReturnStmt, helper string), ft *ast.FuncType, helper string, depth int) {
	unset := unsetResults(pass, ft, body)
	ownReturns(body, func(ret *ast.ReturnStmt) {
		if len(ret.Results) == 2 && isNil(pass, ret.Results[0]) && isNil(pass, ret.Results[1]) || len(ret.Results) == 0 && unset {
			f(ret, helper)
			return
		}
		if len(ret.Results) != 1 || depth >= maxDepth {
			return
		}
		call, ok := ast.Unparen(ret.Results[0]).(*ast.CallExpr)
		if !ok {
			return
		}
		fn := typeutil.StaticCallee(pass.TypesInfo, call)
		if fn == nil {
			return
		}
		fd := hs.decls[fn.Origin()]
		if fd == nil || fd.Body == nil {
			return
		}
		hs.nilReturns(pass, fd.Body, f, fd.Type, fd.Name.Name, depth+1)
	})
}

// unsetResults reports whether a bare return in body returns nil, nil: two
// named results, neither assigned nor addressed anywhere in the body.
func unsetResults(pass *analysis.Pass, ft *ast.FuncType, body *ast.BlockStmt) bool {
	if ft == nil || ft.Results == nil || ft.Results.NumFields() != 2 || len(ft.Results.List[0].Names) == 0 {
		return false
	}
	named := map[types.Object]bool{}
	for _, fl := range ft.Results.List {
		for _, id := range fl.Names {
			named[pass.TypesInfo.Defs[id]] = true
		}
	}
	set := false
	ast.Inspect(body, func(n ast.Node) bool {
		var es []ast.Expr
		switch x := n.(type) {
		case *ast.AssignStmt:
			es = x.Lhs
		case *ast.UnaryExpr:
			if x.Op == token.AND {
				es = []ast.Expr{x.X}
			}
		}
		for _, e := range es {
			if id, ok := ast.Unparen(e).(*ast.Ident); ok && named[pass.TypesInfo.Uses[id]] {
				set = true
			}
		}
		return !set
	})
	return !set
}

// funcType is the signature syntax of a *ast.FuncDecl or *ast.FuncLit.
func funcType(n ast.Node) *ast.FuncType {
	switch f := n.(type) {
	case *ast.FuncDecl:
		return f.Type
	case *ast.FuncLit:
		return f.Type
	}
	return nil
}

func nameOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func isNil(pass *analysis.Pass, e ast.Expr) bool {
	tv, ok := pass.TypesInfo.Types[e]
	return ok && tv.IsNil()
}

// Masked: check 3, a plain error that mcpwrap masks.
var Masked = newCheck("masked", "report plain fmt.Errorf/errors.New errors reaching a handler's return, which mcpwrap masks when their text is private", runMasked)

func runMasked(pass *analysis.Pass, hs *Handlers, r *reporter) {
	globals := map[types.Object]ast.Expr{}
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				if len(vs.Values) != len(vs.Names) {
					continue
				}
				for i, n := range vs.Names {
					globals[pass.TypesInfo.Defs[n]] = vs.Values[i]
				}
			}
		}
	}
	for _, h := range hs.List {
		if h.Kind != "tool" {
			continue // resource and prompt errors go out as JSON-RPC errors; mcpwrap's masking rule is the same but the model rarely reads them
		}
		errIdx := h.Sig.Results().Len() - 1
		m := &masker{pass: pass, hs: hs, globals: globals, h: h, r: r, seen: map[ast.Node]bool{}}
		m.returns(h.Body, errIdx, 0, "")
	}
}

type masker struct {
	pass    *analysis.Pass
	hs      *Handlers
	globals map[types.Object]ast.Expr
	h       *Handler
	r       *reporter
	seen    map[ast.Node]bool
}

// returns follows the error result of the function with body body.
func (m *masker) returns(body *ast.BlockStmt, errIdx, depth int, helper string) {
	if m.seen[body] {
		return
	}
	m.seen[body] = true
	ownReturns(body, func(ret *ast.ReturnStmt) {
		if len(ret.Results) == 1 && errIdx > 0 {
			if call, ok := ast.Unparen(ret.Results[0]).(*ast.CallExpr); ok {
				m.call(call, depth)
			}
			return
		}
		if errIdx < len(ret.Results) {
			m.expr(body, ret.Results[errIdx], depth, helper)
		}
	})
}

func (m *masker) expr(body *ast.BlockStmt, e ast.Expr, depth int, helper string) {
	e = ast.Unparen(e)
	if what := plainError(m.pass, e); what != "" {
		m.report(e.Pos(), what, helper)
		return
	}
	switch x := e.(type) {
	case *ast.CallExpr:
		m.call(x, depth)
	case *ast.Ident:
		obj := m.pass.TypesInfo.Uses[x]
		if obj == nil {
			return
		}
		if init, ok := m.globals[obj]; ok {
			if what := plainError(m.pass, init); what != "" {
				m.report(x.Pos(), what+" (the package-level "+x.Name+")", helper)
			}
			return
		}
		// The assignment to the variable that reaches the return: the last one
		// before it in the source, which is the one in the usual
		// v, err := f(); if err != nil { return …, err } (an err reused for
		// several calls is attributed to the right one).
		var last *ast.AssignStmt
		lastIdx := -1
		ast.Inspect(body, func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok {
				return false
			}
			as, ok := n.(*ast.AssignStmt)
			if !ok || as.Pos() >= x.Pos() {
				return true
			}
			for i, lhs := range as.Lhs {
				if id, ok := lhs.(*ast.Ident); ok && (m.pass.TypesInfo.Defs[id] == obj || m.pass.TypesInfo.Uses[id] == obj) {
					if last == nil || as.Pos() > last.Pos() {
						last, lastIdx = as, i
					}
				}
			}
			return true
		})
		switch {
		case last == nil:
		case len(last.Rhs) == len(last.Lhs):
			if what := plainError(m.pass, last.Rhs[lastIdx]); what != "" {
				m.report(last.Rhs[lastIdx].Pos(), what, helper)
			} else if call, ok := ast.Unparen(last.Rhs[lastIdx]).(*ast.CallExpr); ok {
				m.call(call, depth)
			}
		case len(last.Rhs) == 1 && lastIdx == len(last.Lhs)-1:
			if call, ok := ast.Unparen(last.Rhs[0]).(*ast.CallExpr); ok {
				m.call(call, depth)
			}
		}
	}
}

// call follows the error a same-package helper returns.
func (m *masker) call(call *ast.CallExpr, depth int) {
	if depth >= maxDepth {
		return
	}
	fn := typeutil.StaticCallee(m.pass.TypesInfo, call)
	if fn == nil {
		return
	}
	fd := m.hs.decls[fn.Origin()]
	if fd == nil {
		return
	}
	res := fn.Type().(*types.Signature).Results()
	if res.Len() == 0 || !isError(res.At(res.Len()-1).Type()) {
		return
	}
	m.returns(fd.Body, res.Len()-1, depth+1, fd.Name.Name)
}

func (m *masker) report(pos token.Pos, what, helper string) {
	in := m.h.Subject()
	if helper != "" {
		in = helper + " (called by " + m.h.Subject() + ")"
	}
	sentence := fmt.Sprintf(maskedSentence, "tool "+quote(nameOr(m.h.Name, "<name>")))
	today := ""
	if !m.hs.Wrapped {
		switch {
		case m.h.SDK == "mcp-go" && !isNamed(m.h.Sig.Results().At(0).Type(), mcpgoMCP, "CallToolResult"):
			today = "; without mcpwrap mcp-go's NewStructuredToolHandler sends it as isError `tool execution failed: <this text>`"
		case m.h.SDK == "mcp-go":
			today = "; without mcpwrap mcp-go sends this text verbatim as JSON-RPC error -32603, not as a tool result"
		case m.h.Typed:
			today = "; without mcpwrap go-sdk returns this text verbatim as isError content"
		default:
			today = "; without mcpwrap go-sdk sends this text verbatim as a JSON-RPC error with code 0"
		}
	}
	fix := "mcp.NewToolResultError(…)"
	if m.h.SDK == "go-sdk" {
		fix = "a CallToolResult with IsError: true"
	}
	m.r.report(pos, fmt.Sprintf("%s in %s reaches the handler's return unclassified: mcpwrap shows the model its text scrubbed (secrets, addresses and stacks replaced) with no errs code unless it names a well-known HTTP status, and when nothing worth reading is left (and always under wrap.WithMaskedErrors) the model gets `%s` and cannot correct its call%s; if the model can act on it, return errs.New(errs.InvalidArgument, …) (or another public code: NotFound, PermissionDenied, …), %s, or declare it public with wrap.WithPublicErrors; if it is internal, errs.Wrap(errs.Internal, err, …) says so", what, in, sentence, today, fix))
}

// plainError describes e when it is an unclassified error construction:
// errors.New(…), or fmt.Errorf without %w.
func plainError(pass *analysis.Pass, e ast.Expr) string {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return ""
	}
	fn := callee(pass, call)
	switch {
	case isFunc(fn, "errors", "New"):
		return "errors.New"
	case isFunc(fn, "fmt", "Errorf") && len(call.Args) > 0:
		tv := pass.TypesInfo.Types[call.Args[0]]
		if tv.Value == nil || tv.Value.Kind() != constant.String || strings.Contains(constant.StringVal(tv.Value), "%w") {
			return ""
		}
		return "fmt.Errorf without %w"
	}
	return ""
}

// CtxLost: check 4, the handler's ctx not passed on.
var CtxLost = newCheck("ctxlost", "report upstream calls that do not get the handler's ctx", runCtxLost)

func runCtxLost(pass *analysis.Pass, hs *Handlers, r *reporter) {
	crossSeen := map[string]bool{}
	// A same-package helper that has a …Context twin is followed like any
	// other: what drops the ctx in it is reported there, once.
	followed := map[ast.Node]bool{}
	for _, b := range hs.Bodies {
		followed[b.Node] = true
	}
	for _, b := range hs.Bodies {
		inspect(b.Body, func(n ast.Node, stack []ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := callee(pass, call)
			if fn == nil || fn.Pkg() == nil {
				return true
			}
			const cannot = "a client cancel or mcpwrap's timeout cannot stop it, and it runs on after the model got its answer"
			switch {
			case isFunc(fn, "net/http", "Get", "Post", "PostForm", "Head") || isMethod(fn, "net/http", "Client", "Get", "Post", "PostForm", "Head"):
				r.report(call.Pos(), fmt.Sprintf("%s calls %s, which takes no context: %s; build the request with http.NewRequestWithContext(ctx, …) and send it with client.Do", where(b), callName(fn), cannot))
			case isFunc(fn, "net/http", "NewRequest"):
				r.report(call.Pos(), fmt.Sprintf("%s builds a request with http.NewRequest, without the handler's ctx: %s; use http.NewRequestWithContext(ctx, …)", where(b), cannot))
			case isFunc(fn, "context", "Background", "TODO"):
				if b.Async || inGo(stack) {
					return true // a goroutine meant to outlive the call
				}
				r.report(call.Pos(), fmt.Sprintf("%s uses context.%s() instead of the handler's ctx: what it calls ignores the call's cancellation and deadline, and %s; pass ctx (or context.WithoutCancel(ctx) for work that must outlive the call)", where(b), fn.Name(), "keeps running when the client gives up"))
			case isFunc(fn, "time", "Sleep"):
				if inLoop(stack) {
					r.report(call.Pos(), fmt.Sprintf("%s sleeps with time.Sleep in a loop: a cancelled or timed-out call keeps waiting and retrying; use select { case <-ctx.Done(): return …; case <-time.After(d): }", where(b)))
				}
			case fn.Pkg().Path() == "log/slog":
				// Logging without ctx loses trace correlation, not cancellation.
			case fn.Pkg() != pass.Pkg && !b.Async && importedCtxSite(pass, fn) != "":
				// One finding per site in another package, however many calls reach it.
				if site := importedCtxSite(pass, fn); !crossSeen[site] {
					crossSeen[site] = true
					r.report(call.Pos(), fmt.Sprintf("%s calls %s, which %s: %s; pass the handler's ctx down to it (the first of the calls here that reach it)", where(b), callName(fn), site, cannot))
				}
			case fn.Pkg() == pass.Pkg && followed[hs.decls[fn.Origin()]]:
			default:
				if alt := contextSibling(fn); alt != "" && !hasCtxArg(pass, call) {
					r.report(call.Pos(), fmt.Sprintf("%s calls %s without the handler's ctx: %s; use %s(ctx, …)", where(b), callName(fn), cannot, alt))
				} else if stored := storedCtxArg(pass, call); stored != "" && !b.Async {
					r.report(call.Pos(), fmt.Sprintf("%s calls %s with %s, a context kept outside the call, instead of the handler's ctx: %s; pass the handler's ctx", where(b), callName(fn), stored, cannot))
				}
			}
			return true
		})
	}
}

// contextSibling returns the name of fn's context-taking variant (Query →
// QueryContext, exec.Command → exec.CommandContext), or "".
func contextSibling(fn *types.Func) string {
	if strings.HasSuffix(fn.Name(), "Context") {
		return ""
	}
	name := fn.Name() + "Context"
	if fn.Name() == "Begin" {
		name = "BeginTx" // database/sql's one twin without the suffix
	}
	var alt types.Object
	if n := recvNamed(fn); n != nil {
		alt, _, _ = types.LookupFieldOrMethod(types.NewPointer(n), true, fn.Pkg(), name)
	} else {
		alt = fn.Pkg().Scope().Lookup(name)
	}
	f, ok := alt.(*types.Func)
	if !ok {
		return ""
	}
	p := f.Type().(*types.Signature).Params()
	if p.Len() == 0 || !isNamed(p.At(0).Type(), "context", "Context") {
		return ""
	}
	if recvNamed(fn) != nil {
		return "." + name
	}
	return fn.Pkg().Name() + "." + name
}

// storedCtxArg names a context argument that is a struct field or a
// package-level variable (s.ctx, baseCtx): one that is not the call's.
func storedCtxArg(pass *analysis.Pass, call *ast.CallExpr) string {
	for _, a := range call.Args {
		if !isNamed(pass.TypesInfo.TypeOf(a), "context", "Context") {
			continue
		}
		switch x := ast.Unparen(a).(type) {
		case *ast.SelectorExpr:
			if v, ok := pass.TypesInfo.Uses[x.Sel].(*types.Var); ok && v.IsField() {
				return render(x)
			}
		case *ast.Ident:
			if v, ok := pass.TypesInfo.Uses[x].(*types.Var); ok && v.Pkg() != nil && v.Parent() == v.Pkg().Scope() {
				return x.Name
			}
		}
	}
	return ""
}

func hasCtxArg(pass *analysis.Pass, call *ast.CallExpr) bool {
	for _, a := range call.Args {
		if isNamed(pass.TypesInfo.TypeOf(a), "context", "Context") {
			return true
		}
	}
	return false
}

func inLoop(stack []ast.Node) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		switch stack[i].(type) {
		case *ast.FuncLit:
			return false
		case *ast.ForStmt, *ast.RangeStmt:
			return true
		}
	}
	return false
}

func inGo(stack []ast.Node) bool {
	for _, n := range stack {
		if _, ok := n.(*ast.GoStmt); ok {
			return true
		}
	}
	return false
}

// GoPanic: check 5, goroutines without recover.
var GoPanic = newCheck("gopanic", "report goroutines started from handlers without a deferred recover", runGoPanic)

func runGoPanic(pass *analysis.Pass, hs *Handlers, r *reporter) {
	for _, b := range hs.Bodies {
		ast.Inspect(b.Body, func(n ast.Node) bool {
			var fun ast.Expr
			var how string
			switch x := n.(type) {
			case *ast.GoStmt:
				fun, how = x.Call.Fun, "a goroutine"
			case *ast.CallExpr:
				fn := callee(pass, x)
				if (isMethod(fn, "golang.org/x/sync/errgroup", "Group", "Go", "TryGo") || isMethod(fn, "sync", "WaitGroup", "Go")) && len(x.Args) == 1 {
					fun, how = x.Args[0], callName(fn)
				}
			}
			if fun == nil {
				return true
			}
			var body *ast.BlockStmt
			switch f := ast.Unparen(fun).(type) {
			case *ast.FuncLit:
				body = f.Body
			default:
				if nd, ok := hs.handlerNodeOrDecl(pass, f).(*ast.FuncDecl); ok {
					body = nd.Body
				}
			}
			if body == nil || hasRecover(pass, hs, body) {
				return true
			}
			r.report(fun.Pos(), fmt.Sprintf("%s starts %s without a deferred recover: a panic in it kills the process and every session, and no middleware (mcpwrap's included) runs on that goroutine; begin it with defer func() { if v := recover(); v != nil { /* log */ } }()", where(b), how))
			return true
		})
	}
}

func (hs *Handlers) handlerNodeOrDecl(pass *analysis.Pass, e ast.Expr) ast.Node {
	return hs.handlerNode(pass, e)
}

// hasRecover reports whether body defers a call that recovers: a literal or
// same-package function calling recover(), or any function named *Recover*.
func hasRecover(pass *analysis.Pass, hs *Handlers, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		d, ok := n.(*ast.DeferStmt)
		if !ok {
			return true
		}
		switch f := ast.Unparen(d.Call.Fun).(type) {
		case *ast.FuncLit:
			found = callsRecover(pass, f.Body)
		default:
			fn := callee(pass, d.Call)
			if fn == nil {
				return true
			}
			if strings.Contains(strings.ToLower(fn.Name()), "recover") {
				found = true
			} else if fd := hs.decls[fn.Origin()]; fd != nil {
				found = callsRecover(pass, fd.Body)
			}
		}
		return true
	})
	return found
}

func callsRecover(pass *analysis.Pass, body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
				if b, ok := pass.TypesInfo.Uses[id].(*types.Builtin); ok && b.Name() == "recover" {
					found = true
				}
			}
			if fn := callee(pass, call); fn != nil && strings.Contains(strings.ToLower(fn.Name()), "recover") {
				found = true
			}
		}
		return !found
	})
	return found
}

// Exit: check 6, process exit inside a handler.
var Exit = newCheck("exit", "report log.Fatal*/os.Exit reachable from handlers", runExit)

func runExit(pass *analysis.Pass, hs *Handlers, r *reporter) {
	for _, b := range hs.Bodies {
		ast.Inspect(b.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := callee(pass, call)
			if fn == nil || fn.Pkg() == nil {
				return true
			}
			path := fn.Pkg().Path()
			exits := isFunc(fn, "os", "Exit") || isFunc(fn, "syscall", "Exit") ||
				strings.HasPrefix(fn.Name(), "Fatal") && strings.Contains(path, "log") && path != "testing"
			if !exits {
				return true
			}
			r.report(call.Pos(), fmt.Sprintf("%s calls %s, which ends the process: every session dies mid-call and clients see the connection drop (EOF), not an error; return an error instead (with mcpwrap, errs.Wrap(errs.Fatal, err, …) answers the call and then shuts down)", where(b), callName(fn)))
			return true
		})
	}
}

// Stdout: check 7, writes to stdout in a stdio server.
var Stdout = newCheck("stdout", "report stdout writes reachable from handlers of a program that serves stdio", runStdout)

func init() {
	Stdout.FactTypes = []analysis.Fact{new(stdoutWrites)}
	Stdout.Run = func(pass *analysis.Pass) (any, error) {
		hs := pass.ResultOf[HandlersAnalyzer].(*Handlers)
		runStdout(pass, hs, newReporter(pass, "stdout"))
		return nil, nil
	}
}

// stdoutWrites is the package fact that a package's handlers write to
// stdout, for the program that serves them over stdio.
type stdoutWrites struct{ Sites []string }

func (*stdoutWrites) AFact()           {}
func (f *stdoutWrites) String() string { return "stdoutWrites" }

func runStdout(pass *analysis.Pass, hs *Handlers, r *reporter) {
	var sites []string
	const fix = "write to os.Stderr or a logger instead"
	for _, b := range hs.Bodies {
		ast.Inspect(b.Body, func(n ast.Node) bool {
			var what string
			switch x := n.(type) {
			case *ast.CallExpr:
				if fn := callee(pass, x); isFunc(fn, "fmt", "Print", "Printf", "Println") {
					what = "fmt." + fn.Name()
				}
			case *ast.SelectorExpr:
				if v, ok := pass.TypesInfo.Uses[x.Sel].(*types.Var); ok && v.Pkg() != nil && v.Pkg().Path() == "os" && v.Name() == "Stdout" {
					what = "os.Stdout"
				}
			}
			if what == "" {
				return true
			}
			if len(hs.Stdio) > 0 {
				r.report(n.Pos(), fmt.Sprintf("%s writes to stdout (%s), which this program uses for JSON-RPC over stdio: the client reads a corrupt frame and may drop the session; %s", where(b), what, fix))
			}
			p := pass.Fset.Position(n.Pos())
			sites = append(sites, fmt.Sprintf("%s:%d %s in %s", p.Filename, p.Line, what, where(b)))
			return false
		})
	}
	// Only an importable package's writes matter to the program that serves it.
	if len(sites) > 0 && len(hs.Stdio) == 0 && pass.Pkg.Name() != "main" {
		pass.ExportPackageFact(&stdoutWrites{Sites: sites})
	}
	if len(hs.Stdio) == 0 {
		return
	}
	for _, pf := range pass.AllPackageFacts() {
		f, ok := pf.Fact.(*stdoutWrites)
		if !ok || pf.Package == pass.Pkg {
			continue
		}
		more := ""
		if len(f.Sites) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(f.Sites)-1)
		}
		r.report(hs.Stdio[0], fmt.Sprintf("this program serves stdio, and handlers of package %s write to stdout: %s%s; the client reads a corrupt frame and may drop the session; %s", pf.Package.Path(), f.Sites[0], more, fix))
	}
}

// Secret: check 8, secret-named values in error or result text.
var Secret = newCheck("secret", "report secret-named variables or fields formatted into error or result text", runSecret)

func runSecret(pass *analysis.Pass, hs *Handlers, r *reporter) {
	sinks := sinkParams(pass, hs)
	sec := newSecrets(pass, hs)
	for _, b := range hs.Bodies {
		ast.Inspect(b.Body, func(n ast.Node) bool {
			args, into := textArgs(pass, n, sinks)
			for _, a := range args {
				if id := sec.in(a); id != nil {
					r.report(id.Pos(), fmt.Sprintf("%s formats %s into %s: the model, and every transcript and log that keeps the result, gets the secret; leave it out (name it instead, e.g. \"the API token was rejected\")", where(b), render(id), into))
				}
			}
			return true
		})
	}
}

// textArgs returns the arguments of n that become an error's or a result's
// text, and what they become: the arguments of fmt.Errorf, errors.New,
// errs.New/Newf/Wrap and mcp-go's result constructors, a TextContent's
// Text, and the parameters of same-package helpers that pass them on
// (sinks).
func textArgs(pass *analysis.Pass, n ast.Node, sinks map[*types.Func][]bool) ([]ast.Expr, string) {
	switch x := n.(type) {
	case *ast.CallExpr:
		fn := callee(pass, x)
		switch {
		case isFunc(fn, "fmt", "Errorf") || isFunc(fn, "errors", "New"):
			return x.Args, "an error"
		case fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == "github.com/mcpwrap/mcpwrap/errs" && (fn.Name() == "New" || fn.Name() == "Newf" || fn.Name() == "Wrap"):
			return x.Args, "an error"
		case isFunc(fn, mcpgoMCP, "NewToolResultText", "NewToolResultError", "NewToolResultErrorf", "NewToolResultErrorFromErr", "NewTextContent", "NewToolResultStructured"):
			return x.Args, "the result text"
		case fn != nil && sinks[fn.Origin()] != nil:
			marks := sinks[fn.Origin()]
			var out []ast.Expr
			for i, a := range x.Args {
				j := min(i, len(marks)-1)
				if marks[j] {
					out = append(out, a)
				}
			}
			return out, "the error or result text built by " + fn.Name()
		}
	case *ast.CompositeLit:
		t := pass.TypesInfo.TypeOf(x)
		if isNamed(t, gosdkMCP, "TextContent") || isNamed(t, mcpgoMCP, "TextContent") {
			if v := field(x, "Text"); v != nil {
				return []ast.Expr{v}, "the result text"
			}
		}
	}
	return nil, ""
}

// sinkParams finds the same-package functions whose string parameters
// reach an error's or a result's text (func failure(msg string)
// *mcp.CallToolResult { return mcp.NewToolResultError(msg) }, a toolErr(format,
// args...) around fmt.Sprintf), through each other too: per function, one
// flag per parameter (the last one stands for a variadic tail).
func sinkParams(pass *analysis.Pass, hs *Handlers) map[*types.Func][]bool {
	sinks := map[*types.Func][]bool{}
	for changed, round := true, 0; changed && round <= maxDepth; round++ {
		changed = false
		for fn, fd := range hs.decls {
			sig := fn.Type().(*types.Signature)
			if sig.Params().Len() == 0 {
				continue
			}
			params := map[types.Object]int{}
			for i := range sig.Params().Len() {
				params[sig.Params().At(i)] = i
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				args, _ := textArgs(pass, n, sinks)
				for _, a := range args {
					for _, i := range paramsIn(pass, a, params) {
						if sinks[fn] == nil {
							sinks[fn] = make([]bool, sig.Params().Len())
						}
						if !sinks[fn][i] {
							sinks[fn][i], changed = true, true
						}
					}
				}
				return true
			})
		}
	}
	return sinks
}

// paramsIn lists the parameters e passes on as text: itself, concatenated,
// or through fmt.Sprint*.
func paramsIn(pass *analysis.Pass, e ast.Expr, params map[types.Object]int) []int {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if i, ok := params[pass.TypesInfo.Uses[x]]; ok {
			return []int{i}
		}
	case *ast.BinaryExpr:
		return append(paramsIn(pass, x.X, params), paramsIn(pass, x.Y, params)...)
	case *ast.CallExpr:
		if fn := callee(pass, x); isFunc(fn, "fmt", "Sprintf", "Sprint", "Sprintln") {
			var out []int
			for _, a := range x.Args {
				out = append(out, paramsIn(pass, a, params)...)
			}
			return out
		}
	}
	return nil
}

func secretType(t types.Type) bool {
	if t == nil {
		return false
	}
	if isStringish(t) {
		return true
	}
	s, ok := t.Underlying().(*types.Slice)
	if !ok {
		return false
	}
	b, ok := s.Elem().Underlying().(*types.Basic)
	return ok && b.Kind() == types.Byte
}

func render(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return render(x.X) + "." + x.Sel.Name
	}
	return "a value"
}

var (
	secretWords = map[string]bool{"password": true, "passwd": true, "pwd": true, "passphrase": true, "secret": true, "token": true, "dsn": true, "credential": true, "credentials": true, "apikey": true, "bearer": true}
	secretPairs = map[string]bool{"api key": true, "private key": true, "access key": true, "secret key": true, "client secret": true, "conn str": true, "connection string": true}
	// Words that make a secret-looking name describe the secret instead of
	// holding it: tokenCount, secretName, nextPageToken, tokenURL.
	notSecretWords = map[string]bool{"name": true, "names": true, "id": true, "ids": true, "count": true, "len": true, "length": true, "limit": true, "max": true, "min": true, "num": true, "page": true, "next": true, "prev": true, "cursor": true, "type": true, "kind": true, "url": true, "uri": true, "endpoint": true, "path": true, "file": true, "env": true, "var": true, "field": true, "ttl": true, "expiry": true, "expires": true, "expiration": true, "usage": true, "budget": true, "size": true, "total": true, "header": true, "hint": true, "label": true, "scope": true, "scopes": true, "ref": true, "source": true, "masked": true, "redacted": true, "set": true, "ok": true, "valid": true, "present": true, "required": true, "prefix": true, "suffix": true, "format": true, "policy": true, "manager": true, "store": true, "provider": true, "key": false}
)

// secretName reports whether an identifier names a secret, by its words.
func secretName(name string) bool {
	ws := words(name)
	found := false
	for i, w := range ws {
		if notSecretWords[w] {
			return false
		}
		if secretWords[w] || i > 0 && secretPairs[ws[i-1]+" "+w] {
			found = true
		}
	}
	return found
}

// words splits camelCase, snake_case and kebab-case into lower-case words.
func words(s string) []string {
	var out []string
	var cur []rune
	rs := []rune(s)
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for i, c := range rs {
		switch {
		case c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9':
			flush()
		case c >= 'A' && c <= 'Z':
			// A new word starts at an upper-case letter, unless it continues an
			// acronym (APIKey → api, key).
			if i > 0 && (rs[i-1] >= 'a' && rs[i-1] <= 'z' || i+1 < len(rs) && rs[i+1] >= 'a' && rs[i+1] <= 'z') {
				flush()
			}
			cur = append(cur, c)
		default:
			cur = append(cur, c)
		}
	}
	flush()
	return out
}

// Panic: a handler that can panic with nothing to recover it (panics.go).
var Panic = newCheck("panic", "report what can panic (panic calls, constant indexes without a length check, writes to nil maps, type assertions without ok) in handlers no recovery runs around", runPanic)

// ctxSites is the object fact that a function of the server's own module
// (not a dependency) drops the caller's ctx, for the handlers of another
// package of the module that call it: terraform-mcp-server's tools call
// client.SendRegistryCall(ctx, …), which builds its request with
// http.NewRequest.
type ctxSites struct{ Site string }

func (*ctxSites) AFact()           {}
func (f *ctxSites) String() string { return "ctxSites(" + f.Site + ")" }

func init() {
	CtxLost.FactTypes = []analysis.Fact{new(ctxSites)}
	CtxLost.Run = func(pass *analysis.Pass) (any, error) {
		exportCtxSites(pass)
		hs := pass.ResultOf[HandlersAnalyzer].(*Handlers)
		if len(hs.List) > 0 {
			runCtxLost(pass, hs, newReporter(pass, "ctxlost"))
		}
		return nil, nil
	}
}

func importedCtxSite(pass *analysis.Pass, fn *types.Func) string {
	var f ctxSites
	if pass.ImportObjectFact(fn.Origin(), &f) {
		return f.Site
	}
	return ""
}

// exportCtxSites records, for each function of a package of the main module
// (or a local replacement: a module without a version), the first call in
// it or in a same-package function it calls (up to maxDepth, not on a
// goroutine) that cannot be cancelled: http.Get and friends,
// http.NewRequest, F where FContext exists, time.Sleep in a loop, or a call
// of another such function. Dependencies from the module cache get no facts:
// their internals (go-github's NewRequest, which Do gives the ctx) are not
// the server's to fix.
func exportCtxSites(pass *analysis.Pass) {
	if pass.Module == nil || pass.Module.Version != "" || pass.Module.Path == "" {
		return
	}
	decls := map[*types.Func]*ast.FuncDecl{}
	for _, f := range pass.Files {
		if strings.HasSuffix(pass.Fset.Position(f.Pos()).Filename, "_test.go") {
			continue
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				if fn, ok := pass.TypesInfo.Defs[fd.Name].(*types.Func); ok {
					decls[fn] = fd
				}
			}
		}
	}
	var site func(fd *ast.FuncDecl, depth int, seen map[*ast.FuncDecl]bool) string
	site = func(fd *ast.FuncDecl, depth int, seen map[*ast.FuncDecl]bool) string {
		seen[fd] = true
		found := ""
		inspect(fd.Body, func(n ast.Node, stack []ast.Node) bool {
			if found != "" {
				return false
			}
			if _, ok := n.(*ast.GoStmt); ok {
				return false
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := callee(pass, call)
			if fn == nil || fn.Pkg() == nil {
				return true
			}
			p := pass.Fset.Position(call.Pos())
			at := " (" + filepathBase(p.Filename) + ":" + fmt.Sprint(p.Line) + ")"
			switch {
			case isFunc(fn, "net/http", "Get", "Post", "PostForm", "Head") || isMethod(fn, "net/http", "Client", "Get", "Post", "PostForm", "Head"):
				found = "calls " + callName(fn) + ", which takes no context" + at
			case isFunc(fn, "net/http", "NewRequest"):
				found = "builds its request with http.NewRequest, without a ctx" + at
			case isFunc(fn, "time", "Sleep"):
				if inLoop(stack) {
					found = "sleeps with time.Sleep in a loop" + at
				}
			case fn.Pkg().Path() == "log/slog":
			case fn.Pkg() != pass.Pkg:
				if s := importedCtxSite(pass, fn); s != "" {
					found = "calls " + callName(fn) + ", which " + s
				} else if alt := contextSibling(fn); alt != "" && !hasCtxArg(pass, call) {
					found = "calls " + callName(fn) + " where " + alt + " exists" + at
				}
			default:
				if alt := contextSibling(fn); alt != "" && !hasCtxArg(pass, call) {
					found = "calls " + callName(fn) + " where " + alt + " exists" + at
				} else if d := decls[fn.Origin()]; d != nil && depth < maxDepth && !seen[d] {
					found = site(d, depth+1, seen)
				}
			}
			return found == ""
		})
		return found
	}
	for fn, fd := range decls {
		if s := site(fd, 0, map[*ast.FuncDecl]bool{}); s != "" {
			pass.ExportObjectFact(fn, &ctxSites{Site: s})
		}
	}
}

func filepathBase(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
