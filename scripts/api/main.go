// Command api writes down the public API of every published module of this
// repository, one file per module under api/ (api/<module path with / as
// _>.txt), one line per exported name and its signature, in the style of
// Go's own api/go1.*.txt:
//
//	pkg github.com/mcpwrap/mcpwrap/errs, func FromStatus(string, int, http.Header) error
//	pkg github.com/mcpwrap/mcpwrap/errs, method (*Error) Error() string
//	pkg github.com/mcpwrap/mcpwrap/errs, type Code int
//
// Usage:
//
//	go run ./scripts/api -write   # regenerate api/*.txt from the code
//	go run ./scripts/api -check   # exit 1 when api/*.txt is not what the code says,
//	                              # or when a line of the last release is gone
//	                              # and CHANGELOG.md's Unreleased section does not name it
//
// The packages are those scripts/surface counts (every module of go.work but
// examples/, leaving out internal/, cmd/, tools/, scripts/ and testdata/);
// they are type-checked with go/types against the export data `go list
// -export` writes, so a signature is what the compiler sees, parameter
// names left out (renaming one is no API change).
//
// -check compares each file with the same file at the module's newest
// release tag (vX.Y.Z for the root, wrap/gosdk/vX.Y.Z for a nested
// module), or at -base when given (any git ref, for all modules). A line
// there and not here is an incompatible change: a removed name, or a
// changed signature, which shows as a removed line and an added one. The
// name of each (the package's last element and the name, errs.FromStatus,
// or the bare name) must appear in CHANGELOG.md between the first heading
// "## Unreleased" (or "## vX.Y.Z" above the newest released one) and the
// next "## " heading. Added lines need no entry.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

const repoModule = "github.com/mcpwrap/mcpwrap"

// unpublished modules get no api file: examples and the end-to-end tests
// are never tagged.
var unpublished = map[string]bool{repoModule + "/examples": true, repoModule + "/wrap/authz/jwtauth/e2e": true}

// skip names the directories whose packages are not public API (as in scripts/surface).
var skip = map[string]bool{"internal": true, "examples": true, "cmd": true, "tools": true, "scripts": true, "testdata": true}

func main() {
	write := flag.Bool("write", false, "regenerate api/*.txt")
	check := flag.Bool("check", false, "fail when api/*.txt differs from the code, or a released line is gone without a CHANGELOG.md entry")
	base := flag.String("base", "", "git ref to compare with instead of each module's newest release tag")
	root := flag.String("root", ".", "repository root")
	flag.Parse()
	if *write == *check {
		fmt.Fprintln(os.Stderr, "usage: go run ./scripts/api -write | -check [-base ref]")
		os.Exit(2)
	}
	if err := run(*root, *write, *base); err != nil {
		fmt.Fprintln(os.Stderr, "api:", err)
		var f failure
		if errors.As(err, &f) {
			os.Exit(1)
		}
		os.Exit(2)
	}
}

// failure is a check that failed, as opposed to a tool that could not run.
type failure struct{ msg string }

func (f failure) Error() string { return f.msg }

func run(root string, write bool, base string) error {
	mods, err := modules(root)
	if err != nil {
		return err
	}
	var problems []string
	for _, m := range mods {
		lines, err := dump(m)
		if err != nil {
			return fmt.Errorf("%s: %w", m.Path, err)
		}
		file := filepath.Join(root, "api", fileName(m.Path))
		want := strings.Join(lines, "\n") + "\n"
		if len(lines) == 0 {
			want = ""
		}
		if write {
			if want == "" {
				os.Remove(file)
				fmt.Printf("%-60s no exported API (a command or internal only): no file\n", m.Path)
				continue
			}
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
				return err
			}
			fmt.Printf("%-60s %4d lines  %s\n", m.Path, len(lines), rel(root, file))
			continue
		}
		have, err := os.ReadFile(file)
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		if string(have) != want {
			added, removed := diff(splitLines(string(have)), lines)
			msg := fmt.Sprintf("%s: the API is not what %s says (run: go run ./scripts/api -write, and commit the file)", m.Path, rel(root, file))
			for _, l := range removed {
				msg += "\n\t- " + l
			}
			for _, l := range added {
				msg += "\n\t+ " + l
			}
			problems = append(problems, msg)
		}
		if want == "" {
			continue
		}
		ref := base
		if ref == "" {
			ref = newestTag(root, m)
		}
		if ref == "" {
			fmt.Printf("%-60s %4d lines, no release tag yet: nothing released to break\n", m.Path, len(lines))
			continue
		}
		old, ok := gitShow(root, ref, filepath.ToSlash(filepath.Join("api", fileName(m.Path))))
		if !ok {
			fmt.Printf("%-60s %4d lines, no api file at %s: nothing to compare\n", m.Path, len(lines), ref)
			continue
		}
		_, removed := diff(splitLines(old), lines)
		changelog, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
		if err != nil {
			return err
		}
		section := unreleased(string(changelog))
		var missing []string
		for _, l := range removed {
			if !mentions(section, l) {
				missing = append(missing, l)
			}
		}
		fmt.Printf("%-60s %4d lines, %d incompatible since %s, %d not in CHANGELOG.md\n", m.Path, len(lines), len(removed), ref, len(missing))
		if len(missing) > 0 {
			msg := fmt.Sprintf("%s: incompatible since %s and not named in CHANGELOG.md's Unreleased section:", m.Path, ref)
			for _, l := range missing {
				msg += "\n\t- " + l + "   (name it: " + qualified(l) + ")"
			}
			problems = append(problems, msg)
		}
	}
	if len(problems) > 0 {
		return failure{strings.Join(problems, "\n")}
	}
	return nil
}

func rel(root, p string) string {
	r, err := filepath.Rel(root, p)
	if err != nil {
		return p
	}
	return r
}

// A module of the workspace.
type module struct {
	Path string
	Dir  string
}

// modules lists the published modules of the go.work workspace.
func modules(root string) ([]module, error) {
	cmd := exec.Command("go", "list", "-m", "-json")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -m: %w", err)
	}
	var mods []module
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m module
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if strings.HasPrefix(m.Path, repoModule) && !unpublished[m.Path] {
			mods = append(mods, m)
		}
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].Path < mods[j].Path })
	return mods, nil
}

// fileName is the api file of module path p.
func fileName(p string) string { return strings.ReplaceAll(p, "/", "_") + ".txt" }

type listed struct {
	ImportPath string
	Name       string
	Dir        string
	Export     string
	GoFiles    []string
	Module     *struct{ Path string }
	Error      *struct{ Err string }
}

// dump type-checks the public packages of m and returns its API lines, sorted.
func dump(m module) ([]string, error) {
	cmd := exec.Command("go", "list", "-e", "-export", "-deps", "-json=ImportPath,Name,Dir,Export,GoFiles,Module,Error", "./...")
	cmd.Dir = m.Dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %w", err)
	}
	exports := map[string]string{}
	var own []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if p.Error != nil {
			return nil, fmt.Errorf("%s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Path == m.Path && public(m, p) {
			own = append(own, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	var lines []string
	for _, p := range own {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
		conf := types.Config{Importer: imp}
		pkg, err := conf.Check(p.ImportPath, fset, files, nil)
		if err != nil {
			return nil, fmt.Errorf("type-check %s: %w", p.ImportPath, err)
		}
		lines = append(lines, apiLines(pkg)...)
	}
	sort.Strings(lines)
	return lines, nil
}

// public reports whether package p of m is public API.
func public(m module, p listed) bool {
	if p.Name == "main" {
		return false
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, m.Path), "/")
	if rel == "" {
		return true
	}
	for _, el := range strings.Split(rel, "/") {
		if skip[el] {
			return false
		}
	}
	return true
}

// apiLines lists pkg's exported names, Go api style.
func apiLines(pkg *types.Package) []string {
	qual := func(p *types.Package) string {
		if p == pkg {
			return ""
		}
		return p.Name()
	}
	prefix := "pkg " + pkg.Path() + ", "
	var out []string
	add := func(s string) { out = append(out, prefix+s) }
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			add(fmt.Sprintf("const %s %s = %s", name, ts(obj.Type(), qual), obj.Val().ExactString()))
		case *types.Var:
			add(fmt.Sprintf("var %s %s", name, ts(obj.Type(), qual)))
		case *types.Func:
			sig := obj.Type().(*types.Signature)
			add("func " + name + typeParams(sig.TypeParams(), qual) + signature(sig, qual))
		case *types.TypeName:
			typeLines(obj, qual, add)
		}
	}
	return out
}

func typeLines(obj *types.TypeName, qual types.Qualifier, add func(string)) {
	name := obj.Name()
	if obj.IsAlias() {
		add(fmt.Sprintf("type %s = %s", name, ts(types.Unalias(obj.Type()), qual)))
		return
	}
	named, ok := obj.Type().(*types.Named)
	if !ok {
		return
	}
	head := "type " + name + typeParams(named.TypeParams(), qual)
	switch u := named.Underlying().(type) {
	case *types.Struct:
		add(head + " struct")
		for i := 0; i < u.NumFields(); i++ {
			f := u.Field(i)
			if !f.Exported() {
				continue
			}
			if f.Embedded() {
				add(fmt.Sprintf("%s struct, embedded %s", head, ts(f.Type(), qual)))
			} else {
				add(fmt.Sprintf("%s struct, %s %s", head, f.Name(), ts(f.Type(), qual)))
			}
		}
	case *types.Interface:
		var ms []string
		for i := 0; i < u.NumMethods(); i++ {
			m := u.Method(i)
			if !m.Exported() {
				// An unexported method: no type outside the package implements it.
				ms = append(ms, "unexported methods")
				continue
			}
			ms = append(ms, m.Name())
			add(fmt.Sprintf("%s interface, %s%s", head, m.Name(), signature(m.Type().(*types.Signature), qual)))
		}
		ms = dedup(ms)
		add(fmt.Sprintf("%s interface { %s }", head, strings.Join(ms, ", ")))
	default:
		add(head + " " + ts(u, qual))
	}
	if _, isIface := named.Underlying().(*types.Interface); isIface {
		return
	}
	// Methods, promoted ones included: every method a caller can call on T or *T.
	ptr := types.NewMethodSet(types.NewPointer(named))
	val := types.NewMethodSet(named)
	recvParams := ""
	if tp := named.TypeParams(); tp.Len() > 0 {
		var names []string
		for i := 0; i < tp.Len(); i++ {
			names = append(names, tp.At(i).Obj().Name())
		}
		recvParams = "[" + strings.Join(names, ", ") + "]"
	}
	for i := 0; i < ptr.Len(); i++ {
		sel := ptr.At(i)
		m := sel.Obj().(*types.Func)
		if !m.Exported() {
			continue
		}
		recv := "*" + name + recvParams
		if val.Lookup(m.Pkg(), m.Name()) != nil {
			recv = name + recvParams
		}
		add(fmt.Sprintf("method (%s) %s%s", recv, m.Name(), signature(m.Type().(*types.Signature), qual)))
	}
}

func dedup(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func typeParams(tp *types.TypeParamList, qual types.Qualifier) string {
	if tp == nil || tp.Len() == 0 {
		return ""
	}
	var ps []string
	for i := 0; i < tp.Len(); i++ {
		p := tp.At(i)
		ps = append(ps, p.Obj().Name()+" "+ts(p.Constraint(), qual))
	}
	return "[" + strings.Join(ps, ", ") + "]"
}

// ts prints t as types.TypeString does, but a func type's parameters
// without their names, at any depth (func(ctx context.Context) is
// func(context.Context)): renaming a callback's parameter is no change.
func ts(t types.Type, qual types.Qualifier) string {
	switch t := t.(type) {
	case *types.Signature:
		return "func" + signature(t, qual)
	case *types.Pointer:
		return "*" + ts(t.Elem(), qual)
	case *types.Slice:
		return "[]" + ts(t.Elem(), qual)
	case *types.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), ts(t.Elem(), qual))
	case *types.Map:
		return "map[" + ts(t.Key(), qual) + "]" + ts(t.Elem(), qual)
	case *types.Chan:
		prefix := map[types.ChanDir]string{types.SendRecv: "chan ", types.SendOnly: "chan<- ", types.RecvOnly: "<-chan "}[t.Dir()]
		return prefix + ts(t.Elem(), qual)
	case *types.Named:
		args := t.TypeArgs()
		if args == nil || args.Len() == 0 {
			return types.TypeString(t, qual)
		}
		name := t.Obj().Name()
		if q := qual(t.Obj().Pkg()); q != "" {
			name = q + "." + name
		}
		var as []string
		for i := 0; i < args.Len(); i++ {
			as = append(as, ts(args.At(i), qual))
		}
		return name + "[" + strings.Join(as, ", ") + "]"
	}
	return types.TypeString(t, qual)
}

// signature prints sig without parameter names: (string, int) error.
func signature(sig *types.Signature, qual types.Qualifier) string {
	var b strings.Builder
	b.WriteString("(")
	for i := 0; i < sig.Params().Len(); i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		t := sig.Params().At(i).Type()
		if sig.Variadic() && i == sig.Params().Len()-1 {
			b.WriteString("..." + ts(t.(*types.Slice).Elem(), qual))
			continue
		}
		b.WriteString(ts(t, qual))
	}
	b.WriteString(")")
	switch r := sig.Results(); r.Len() {
	case 0:
	case 1:
		b.WriteString(" " + ts(r.At(0).Type(), qual))
	default:
		b.WriteString(" (")
		for i := 0; i < r.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(ts(r.At(i).Type(), qual))
		}
		b.WriteString(")")
	}
	return b.String()
}

func splitLines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// diff returns the lines of now not in old, and of old not in now.
func diff(old, now []string) (added, removed []string) {
	in := func(s []string) map[string]bool {
		m := map[string]bool{}
		for _, l := range s {
			m[l] = true
		}
		return m
	}
	o, n := in(old), in(now)
	for _, l := range now {
		if !o[l] {
			added = append(added, l)
		}
	}
	for _, l := range old {
		if !n[l] {
			removed = append(removed, l)
		}
	}
	return added, removed
}

// newestTag is m's newest release tag in the repository at root, or "".
func newestTag(root string, m module) string {
	prefix := strings.TrimPrefix(strings.TrimPrefix(m.Path, repoModule), "/")
	if prefix != "" {
		prefix += "/"
	}
	cmd := exec.Command("git", "tag", "--list", prefix+"v*", "--sort=-v:refname")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	semver := regexp.MustCompile(`^v\d+\.\d+\.\d+$`) // a release, not a pre-release
	for _, t := range strings.Fields(string(out)) {
		if semver.MatchString(strings.TrimPrefix(t, prefix)) {
			return t
		}
	}
	return ""
}

func gitShow(root, ref, path string) (string, bool) {
	cmd := exec.Command("git", "show", ref+":"+path)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return "", false
	}
	return string(out), true
}

var heading = regexp.MustCompile(`(?m)^## `)

// unreleased returns the first section of a CHANGELOG: from the first "## "
// heading (it must say Unreleased or a version) to the next.
func unreleased(changelog string) string {
	locs := heading.FindAllStringIndex(changelog, -1)
	if len(locs) == 0 {
		return ""
	}
	start := locs[0][0]
	end := len(changelog)
	if len(locs) > 1 {
		end = locs[1][0]
	}
	first := changelog[start:end]
	title := strings.ToLower(strings.SplitN(first, "\n", 2)[0])
	if !strings.Contains(title, "unreleased") && !regexp.MustCompile(`v\d+\.\d+`).MatchString(title) {
		return ""
	}
	return first
}

// mentions reports whether section names the API line l: its qualified
// name (errs.FromStatus, wrap.Option.Foo for a field or method) as a word.
func mentions(section, l string) bool {
	q := qualified(l)
	re := regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(q) + `($|[^\w])`)
	return re.MatchString(section)
}

var (
	reMethod = regexp.MustCompile(`^method \(\*?(\w+)(?:\[[^\]]*\])?\) (\w+)`)
	reField  = regexp.MustCompile(`^type (\w+)(?:\[[^\]]*\])? (?:struct|interface), (?:embedded )?\*?([\w.]+)`)
	reName   = regexp.MustCompile(`^(?:func|type|const|var) (\w+)`)
)

// qualified names the API line l the way CHANGELOG.md does: errs.FromStatus,
// errs.Error.Unwrap (a method or field), errs.Code.
func qualified(l string) string {
	pkg, decl, ok := strings.Cut(strings.TrimPrefix(l, "pkg "), ", ")
	if !ok {
		return l
	}
	short := pkg[strings.LastIndex(pkg, "/")+1:]
	if m := reMethod.FindStringSubmatch(decl); m != nil {
		return short + "." + m[1] + "." + m[2]
	}
	if m := reField.FindStringSubmatch(decl); m != nil {
		field := m[2]
		field = field[strings.LastIndex(field, ".")+1:]
		return short + "." + m[1] + "." + field
	}
	if m := reName.FindStringSubmatch(decl); m != nil {
		return short + "." + m[1]
	}
	return l
}
