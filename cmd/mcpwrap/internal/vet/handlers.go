package vet

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/types/typeutil"
)

// Import paths of the two SDKs whose handlers are found.
const (
	mcpgoMCP     = "github.com/mark3labs/mcp-go/mcp"
	mcpgoServer  = "github.com/mark3labs/mcp-go/server"
	gosdkMCP     = "github.com/modelcontextprotocol/go-sdk/mcp"
	mcpwrapWrap  = "github.com/mcpwrap/mcpwrap/wrap"
	mcpwrapGoSDK = "github.com/mcpwrap/mcpwrap/wrap/gosdk"
	mcpwrapMCPGo = "github.com/mcpwrap/mcpwrap/wrap/mcpgo"
)

// maxDepth is how many calls deep into same-package helpers a handler's
// findings are followed: four reaches github-mcp-server's log download
// (handler → handleX → getJobLogData → downloadLogContent → http.Get).
const maxDepth = 4

// Handler is one tool, resource or prompt handler: a function literal or a
// declared function or method whose signature is an SDK handler's.
type Handler struct {
	Node  ast.Node // *ast.FuncLit or *ast.FuncDecl
	Body  *ast.BlockStmt
	Sig   *types.Signature
	Kind  string // "tool", "resource" or "prompt"
	SDK   string // "mcp-go" or "go-sdk"
	Typed bool   // go-sdk ToolHandlerFor or mcp-go typed/structured handler (three parameters)
	Name  string // the registered name when a registration names it, else ""
	// Bare: no recovery runs around it. go-sdk: the package cannot attach
	// mcpwrap, or every registration of it found is straight with the SDK
	// on a server mcpwrap is not attached to; mcp-go: the same, on a server
	// without server.WithRecovery().
	Bare bool
}

// Subject names the handler the way the model's error sentence does.
func (h *Handler) Subject() string {
	if h.Name == "" {
		return "the " + h.Kind + " handler"
	}
	return h.Kind + " " + quote(h.Name)
}

// Body is code a handler runs: the handler itself (Depth 0) or a
// same-package function it calls, directly (1) or through one more (2).
type Body struct {
	Node    ast.Node
	Body    *ast.BlockStmt
	Handler *Handler // the first handler found to reach it
	Depth   int
	// Async: reached through a go statement, so it runs after the call
	// may have been answered (a context.Background() there is on purpose).
	Async bool
}

// Handlers is what the handlers analyzer finds in a package.
type Handlers struct {
	List    []*Handler
	Bodies  []*Body
	Stdio   []token.Pos // where the package serves stdio (server.ServeStdio, StdioTransport…)
	Wrapped bool        // the package imports mcpwrap's wrap or wrap/gosdk
	decls   map[*types.Func]*ast.FuncDecl
}

// HandlersAnalyzer finds the handlers; the checks require it.
var HandlersAnalyzer = &analysis.Analyzer{
	Name:       "mcphandlers",
	Doc:        "find MCP tool, resource and prompt handlers of mcp-go and go-sdk by their types",
	Run:        findHandlers,
	ResultType: reflect.TypeOf((*Handlers)(nil)),
}

func findHandlers(pass *analysis.Pass) (any, error) {
	hs := &Handlers{decls: map[*types.Func]*ast.FuncDecl{}}
	usesSDK := false
	for _, imp := range pass.Pkg.Imports() {
		switch imp.Path() {
		case mcpgoMCP, mcpgoServer, gosdkMCP:
			usesSDK = true
		case mcpwrapWrap, mcpwrapGoSDK:
			hs.Wrapped = true
		}
	}
	if !usesSDK {
		return hs, nil
	}
	byNode := map[ast.Node]*Handler{}
	// Handlers in test files serve no client: stubs there return nil, nil
	// or plain errors on purpose. Helpers in them are still followed.
	inTest := func(n ast.Node) bool {
		return strings.HasSuffix(pass.Fset.Position(n.Pos()).Filename, "_test.go")
	}
	for _, f := range pass.Files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			fn, _ := pass.TypesInfo.Defs[fd.Name].(*types.Func)
			if fn == nil {
				continue
			}
			hs.decls[fn] = fd
			if h := asHandler(fn.Type().(*types.Signature)); h != nil && !inTest(fd) {
				h.Node, h.Body = fd, fd.Body
				byNode[fd] = h
				hs.List = append(hs.List, h)
			}
		}
	}
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				sig, _ := pass.TypesInfo.TypeOf(n).(*types.Signature)
				if sig == nil {
					return true
				}
				if h := asHandler(sig); h != nil && !inTest(n) {
					h.Node, h.Body = n, n.Body
					byNode[n] = h
					hs.List = append(hs.List, h)
				}
			case *ast.CallExpr:
				if isStdioServe(pass, n) {
					hs.Stdio = append(hs.Stdio, n.Pos())
				}
			case *ast.CompositeLit:
				if t := pass.TypesInfo.TypeOf(n); t != nil && isNamed(t, gosdkMCP, "StdioTransport") {
					hs.Stdio = append(hs.Stdio, n.Pos())
				}
			}
			return true
		})
	}
	// Names: a registration or a constructor that has a handler and a tool,
	// resource or prompt definition side by side.
	for _, f := range pass.Files {
		ast.Inspect(f, func(n ast.Node) bool {
			var exprs []ast.Expr
			switch n := n.(type) {
			case *ast.CallExpr:
				exprs = n.Args
			case *ast.ReturnStmt:
				exprs = n.Results
			case *ast.CompositeLit:
				for _, e := range n.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						exprs = append(exprs, kv.Value)
					} else {
						exprs = append(exprs, e)
					}
				}
			default:
				return true
			}
			name := ""
			for _, e := range exprs {
				if s := definedName(pass, e); s != "" {
					name = s
					break
				}
			}
			if name == "" {
				return true
			}
			for _, e := range exprs {
				if h := byNode[hs.handlerNode(pass, e)]; h != nil && h.Name == "" {
					h.Name = name
				}
			}
			return true
		})
	}
	// Reachable bodies, breadth first so each body is attributed at its
	// smallest depth.
	seen := map[ast.Node]bool{}
	queue := []*Body{}
	for _, h := range hs.List {
		queue = append(queue, &Body{Node: h.Node, Body: h.Body, Handler: h})
		seen[h.Node] = true
	}
	hs.Bodies = hs.reach(pass, queue, seen, false)
	hs.markBare(pass)
	return hs, nil
}

// reach is the bodies of queue and of the same-package functions they call,
// up to maxDepth deep, breadth first so each body comes at its smallest
// depth; seen holds what is queued already. A function called under a go
// statement is Async; with syncOnly, what a go statement or a function
// literal calls is not followed.
func (hs *Handlers) reach(pass *analysis.Pass, queue []*Body, seen map[ast.Node]bool, syncOnly bool) []*Body {
	var out []*Body
	for len(queue) > 0 {
		b := queue[0]
		queue = queue[1:]
		out = append(out, b)
		if b.Depth == maxDepth {
			continue
		}
		inspect(b.Body, func(n ast.Node, stack []ast.Node) bool {
			switch n.(type) {
			case *ast.FuncLit, *ast.GoStmt:
				if syncOnly {
					return false
				}
			}
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := typeutil.StaticCallee(pass.TypesInfo, call)
			if fn == nil {
				return true
			}
			fd := hs.decls[fn.Origin()]
			if fd == nil || seen[fd] {
				return true
			}
			seen[fd] = true
			queue = append(queue, &Body{Node: fd, Body: fd.Body, Handler: b.Handler, Depth: b.Depth + 1, Async: b.Async || inGo(stack)})
			return true
		})
	}
	return out
}

// handlerNode resolves an expression used as a handler to its function
// literal or declaration in this package: a literal, a function or method
// value, a conversion to a handler type.
func (hs *Handlers) handlerNode(pass *analysis.Pass, e ast.Expr) ast.Node {
	e = ast.Unparen(e)
	switch x := e.(type) {
	case *ast.FuncLit:
		return x
	case *ast.CallExpr:
		if tv, ok := pass.TypesInfo.Types[x.Fun]; ok && tv.IsType() && len(x.Args) == 1 {
			return hs.handlerNode(pass, x.Args[0])
		}
		// A generic constructor such as mcp.NewTypedToolHandler(h).
		if len(x.Args) == 1 {
			if fn := typeutil.StaticCallee(pass.TypesInfo, x); fn != nil && fn.Pkg() != nil && fn.Pkg().Path() == mcpgoMCP {
				return hs.handlerNode(pass, x.Args[0])
			}
		}
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr:
		var id *ast.Ident
		switch y := x.(type) {
		case *ast.Ident:
			id = y
		case *ast.SelectorExpr:
			id = y.Sel
		case *ast.IndexExpr:
			return hs.handlerNode(pass, y.X)
		case *ast.IndexListExpr:
			return hs.handlerNode(pass, y.X)
		}
		if fn, ok := pass.TypesInfo.Uses[id].(*types.Func); ok {
			if fd := hs.decls[fn.Origin()]; fd != nil {
				return fd
			}
		}
	}
	return nil
}

// definedName returns the name in mcp.NewTool("name", …), mcp.NewResource(uri, name…),
// mcp.NewPrompt("name", …) or &mcp.Tool{Name: "name"} (and Prompt, Resource).
func definedName(pass *analysis.Pass, e ast.Expr) string {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = u.X
	}
	switch x := e.(type) {
	case *ast.CallExpr:
		fn := typeutil.StaticCallee(pass.TypesInfo, x)
		if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != mcpgoMCP || len(x.Args) == 0 {
			return ""
		}
		switch fn.Name() {
		case "NewTool", "NewPrompt", "NewResource", "NewResourceTemplate":
			return constString(pass, x.Args[0])
		}
	case *ast.CompositeLit:
		t := pass.TypesInfo.TypeOf(x)
		if !isNamed(t, gosdkMCP, "Tool") && !isNamed(t, gosdkMCP, "Prompt") && !isNamed(t, gosdkMCP, "Resource") && !isNamed(t, gosdkMCP, "ResourceTemplate") {
			return ""
		}
		var name, uri string
		for _, el := range x.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			switch k, _ := kv.Key.(*ast.Ident); {
			case k == nil:
			case k.Name == "Name":
				name = constString(pass, kv.Value)
			case k.Name == "URI" || k.Name == "URITemplate":
				uri = constString(pass, kv.Value)
			}
		}
		if isNamed(t, gosdkMCP, "Resource") || isNamed(t, gosdkMCP, "ResourceTemplate") {
			if uri != "" {
				return uri
			}
		}
		return name
	}
	return ""
}

func constString(pass *analysis.Pass, e ast.Expr) string {
	if tv, ok := pass.TypesInfo.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
		return constant.StringVal(tv.Value)
	}
	return ""
}

// asHandler reports whether sig is an SDK handler's: ctx first, the SDK's
// request type among the other parameters (a server's own handler shape
// such as func(ctx, deps, req, args) counts too), error last; a tool
// handler's first result is the SDK's CallToolResult unless it is mcp-go's
// structured handler.
func asHandler(sig *types.Signature) *Handler {
	p, r := sig.Params(), sig.Results()
	if p.Len() < 2 || r.Len() < 2 || r.Len() > 3 {
		return nil
	}
	if !isNamed(p.At(0).Type(), "context", "Context") || !isError(r.At(r.Len()-1).Type()) {
		return nil
	}
	var h *Handler
	for i := 1; i < p.Len() && h == nil; i++ {
		if sdk, kind := requestKind(p.At(i).Type()); kind != "" {
			h = &Handler{Sig: sig, SDK: sdk, Kind: kind, Typed: p.Len() > i+1}
		}
	}
	if h == nil {
		return nil
	}
	switch {
	case h.Kind == "tool" && h.SDK == "go-sdk":
		if !isNamed(r.At(0).Type(), gosdkMCP, "CallToolResult") {
			return nil
		}
		h.Typed = r.Len() == 3
	case h.Kind == "tool":
		// mcp-go's structured handler returns its own type; the others a CallToolResult.
		if r.Len() != 2 || !h.Typed && !isNamed(r.At(0).Type(), mcpgoMCP, "CallToolResult") {
			return nil
		}
	case r.Len() != 2 || h.Typed:
		return nil
	}
	return h
}

// requestKind tells the SDK and the kind of handler a request type is for.
func requestKind(t types.Type) (sdk, kind string) {
	switch {
	case isNamed(t, mcpgoMCP, "CallToolRequest"):
		return "mcp-go", "tool"
	case isNamed(t, mcpgoMCP, "ReadResourceRequest"):
		return "mcp-go", "resource"
	case isNamed(t, mcpgoMCP, "GetPromptRequest"):
		return "mcp-go", "prompt"
	}
	// go-sdk: *ServerRequest[*CallToolParamsRaw] and friends.
	ptr, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return "", ""
	}
	n, ok := types.Unalias(ptr.Elem()).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != gosdkMCP || n.Obj().Name() != "ServerRequest" || n.TypeArgs().Len() != 1 {
		return "", ""
	}
	switch arg := n.TypeArgs().At(0); {
	case isNamed(arg, gosdkMCP, "CallToolParamsRaw"):
		return "go-sdk", "tool"
	case isNamed(arg, gosdkMCP, "ReadResourceParams"):
		return "go-sdk", "resource"
	case isNamed(arg, gosdkMCP, "GetPromptParams"):
		return "go-sdk", "prompt"
	}
	return "", ""
}

func isStdioServe(pass *analysis.Pass, call *ast.CallExpr) bool {
	fn := typeutil.StaticCallee(pass.TypesInfo, call)
	if fn == nil || fn.Pkg() == nil {
		return false
	}
	switch fn.Pkg().Path() {
	case mcpgoServer:
		return fn.Name() == "ServeStdio" || fn.Name() == "NewStdioServer"
	}
	return false
}

// isNamed reports whether t (or what it points to) is the named type pkg.name.
func isNamed(t types.Type, pkg, name string) bool {
	if t == nil {
		return false
	}
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkg && n.Obj().Name() == name
}

var errorType = types.Universe.Lookup("error").Type()

func isError(t types.Type) bool { return types.Identical(t, errorType) }

// implementsError reports whether a value of type t is an error.
func implementsError(t types.Type) bool {
	return t != nil && types.Implements(t, errorType.Underlying().(*types.Interface))
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
