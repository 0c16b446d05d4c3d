package validate

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/structtag"
)

// boundedFrom is the number of decoded values from which a call's
// elements are checked by checkDive, which stops once the list of
// violations is full, instead of by the validator, which builds an error
// for every failing element of a list of any length.
const boundedFrom = 1024

// maxRecount is how many more elements checkDive looks at, to count
// problems, once the list of violations is full.
const maxRecount = 256

// maxMessage is the length of the sentences an error's message lists
// (bytes); the rest is counted ("and 12 more problems").
const maxMessage = 2 << 10

// check runs the validator's rules over dst, the decoded T, and adds their
// violations to d. When decoding already filled the list, the rules are
// not run at all.
func (c *core) check(d *decoder, dst reflect.Value) {
	switch {
	case d.full():
		d.partial = true
	case d.values > boundedFrom && c.hasDive:
		c.runStruct(d, dst.Addr().Interface(), "", true)
		c.walkDives(d, dst, c.root, "")
	default:
		c.runStruct(d, dst.Addr().Interface(), "", false)
	}
}

// runStruct validates a struct (or a pointer to one), skipping the fields
// that dive when filtered, and adds its violations under prefix.
func (c *core) runStruct(d *decoder, x any, prefix string, filtered bool) {
	c.collect(d, under(prefix), func() error {
		if filtered {
			return c.v.StructFiltered(x, c.skipDive)
		}
		return c.v.Struct(x)
	})
}

// runVar checks one value against a tag and adds its violations at path.
// It reports whether the value failed.
func (c *core) runVar(d *decoder, x any, tag, path string) bool {
	n := len(d.viols) + d.more
	c.collect(d, under(path), func() error { return c.v.Var(x, tag) })
	return len(d.viols)+d.more > n || d.internal != nil
}

// under returns the path of a validator namespace found under prefix.
func under(prefix string) func(ns string) string {
	return func(ns string) string {
		p := shortPath(cleanNamespace(ns))
		switch {
		case prefix == "":
			return p
		case p == "":
			return prefix
		}
		return prefix + "." + p
	}
}

// chunk is how many elements checkDive hands the validator at once when
// they cannot hold a field that dives: few enough that a chunk of failing
// elements stays cheap, many enough to cost what the validator's own dive
// costs on a valid call.
const chunk = 128

// runChunk checks the elements s (a slice) with the validator, as the
// elements from off on of the list at path.
func (c *core) runChunk(d *decoder, s any, tag, path string, off int) {
	c.collect(d, func(ns string) string {
		// ns is "[3]" or "[3].field": the index within the chunk.
		end := strings.IndexByte(ns, ']')
		i, err := strconv.Atoi(ns[min(1, len(ns)):max(end, 0)])
		if end < 0 || err != nil {
			return path
		}
		rest := shortPath(strings.ReplaceAll(ns[end+1:], embedded+".", ""))
		return path + "[" + strconv.Itoa(off+i) + "]" + rest
	}, func() error { return c.v.Var(s, tag) })
}

// collect runs the validator and adds its violations, except those about
// values that could not be decoded. pathOf turns a validator namespace
// into a parameter path.
func (c *core) collect(d *decoder, pathOf func(string) string, run func() error) {
	err := guarded(run)
	if err == nil {
		return
	}
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) {
		d.internal = err
		return
	}
	for _, fe := range ves {
		p := pathOf(fe.Namespace())
		if within(p, d.failed) {
			continue
		}
		if d.full() {
			d.more++
			continue
		}
		d.viols = append(d.viols, c.violation(fe, p, slices.Contains(d.zeroPresent, p)))
	}
}

// guarded calls run and returns its error, or the validator's panic as
// one.
func guarded(run func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("validator panicked: %v", r)
		}
	}()
	return run()
}

// skipDive is the validator's filter in a large call: it skips the fields
// that dive, which walkDives checks.
func (c *core) skipDive(ns []byte) bool {
	name := ns[bytes.LastIndexByte(ns, '.')+1:]
	return c.diveOnly[string(name)]
}

// walkDives finds the fields under the struct v that the filtered
// validator skipped and checks them.
func (c *core) walkDives(d *decoder, v reflect.Value, n *node, path string) {
	for i := range n.fields {
		if d.full() {
			d.partial = true
			return
		}
		f := &n.fields[i]
		fv := v.FieldByIndex(f.index)
		fp := joinPath(path, f.name)
		if c.diveOnly[f.goName] {
			c.checkDive(d, fv, f.node, f.tag, fp)
			continue
		}
		if walksInto(f.tag) {
			c.walkInto(d, fv, f.node, fp)
		}
	}
}

// walksInto reports whether a field's tag lets the validator look into
// the field's own fields.
func walksInto(tag string) bool {
	return !hasRule(tag, "structonly") && !hasRule(tag, "nostructlevel") && tag != "-"
}

// walkInto is walkDives through pointers, for a value that may not be a
// struct.
func (c *core) walkInto(d *decoder, v reflect.Value, n *node, path string) {
	if v, n, ok := deref(v, n); ok && n.kind == kStruct {
		c.walkDives(d, v, n, path)
	}
}

// deref follows v's pointers, and n's with them; ok is false at a nil one.
func deref(v reflect.Value, n *node) (_ reflect.Value, _ *node, ok bool) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return v, n, false
		}
		v, n = v.Elem(), n.elem
	}
	return v, n, true
}

// checkDive checks a field that dives, as the validator would: its own
// rules, then, if they pass, every element, stopping once the list of
// violations is full.
func (c *core) checkDive(d *decoder, v reflect.Value, n *node, tag, path string) {
	if own := strings.TrimSuffix(beforeDive(tag), ","); own != "" && c.runVar(d, v.Interface(), own, path) {
		return
	}
	v, n, ok := deref(v, n)
	if !ok {
		return
	}
	rest, _ := afterDive(tag)
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		c.checkItems(d, v, n, rest, path)
	case reflect.Map:
		c.checkEntries(d, v, n, rest, path)
	}
}

// checkItems is checkDive's loop over a list: by chunks when its elements
// hold no field that dives, else one by one.
func (c *core) checkItems(d *decoder, v reflect.Value, n *node, rest, path string) {
	if (v.Kind() == reflect.Slice || v.CanAddr()) && !hasRule(rest, "dive") && !c.divesIn(n.elem) {
		c.checkChunks(d, v, n, rest, path)
		return
	}
	for i := range v.Len() {
		if !d.recheck(1) {
			return
		}
		c.checkElem(d, v.Index(i), n.elem, rest, path+"["+strconv.Itoa(i)+"]")
	}
}

// checkEntries is checkDive's loop over a map: its keys' rules (after
// "keys"), then its values'.
func (c *core) checkEntries(d *decoder, v reflect.Value, n *node, rest, path string) {
	keys, vals := keysRules(rest), stripKeys(rest)
	for it := v.MapRange(); it.Next(); {
		if !d.recheck(1) {
			return
		}
		kp := path + "[" + shortKey(it.Key().String()) + "]"
		if keys != "" {
			c.runVar(d, it.Key().Interface(), keys, kp)
		}
		c.checkElem(d, it.Value(), n.elem, vals, kp)
	}
}

// checkChunks is checkDive's loop over a list whose elements hold no field
// that dives: the validator checks them chunk by chunk, and checking stops
// after the chunk that filled the list of violations.
func (c *core) checkChunks(d *decoder, v reflect.Value, n *node, rest, path string) {
	if rest == "" && structNode(n.elem) == nil {
		return
	}
	tag := "dive"
	if rest != "" {
		tag += "," + rest
	}
	for off := 0; off < v.Len(); off += chunk {
		if !d.recheck(chunk) {
			return
		}
		c.runChunk(d, v.Slice(off, min(off+chunk, v.Len())).Interface(), tag, path, off)
	}
}

// structNode returns the struct node n points to, or nil.
func structNode(n *node) *node {
	for n.kind == kPtr {
		n = n.elem
	}
	if n.kind == kStruct {
		return n
	}
	return nil
}

// divesIn reports whether a value of n's type may hold a field that dives
// (see diveOnly), which the validator's own walk must not reach in a large
// call.
func (c *core) divesIn(n *node) bool {
	dives, ok := c.dives[n]
	if !ok {
		return true // not indexed: assume the worst
	}
	return dives
}

// indexDives fills c.dives for every node of the plan.
func (c *core) indexDives(nodes map[reflect.Type]*node) {
	c.dives = make(map[*node]bool, len(nodes))
	var visit func(n *node, seen map[*node]bool) bool
	visit = func(n *node, seen map[*node]bool) bool {
		if seen[n] {
			return false
		}
		seen[n] = true
		defer delete(seen, n)
		switch n.kind {
		case kPtr, kSlice, kArray, kMap:
			return visit(n.elem, seen)
		case kStruct:
			for _, f := range n.fields {
				if c.diveOnly[f.goName] || visit(f.node, seen) {
					return true
				}
			}
		}
		return false
	}
	for _, n := range nodes {
		c.dives[n] = visit(n, map[*node]bool{})
	}
}

// recheck reports whether checkDive may look at n more elements: always
// while the list of violations has room, then until it has looked at
// maxRecount more.
func (d *decoder) recheck(n int) bool {
	if !d.full() {
		return true
	}
	if d.rechecked >= maxRecount {
		d.partial = true
		return false
	}
	d.rechecked += n
	return true
}

// shortPath cuts every key between brackets in a validator namespace the
// way the decoder cuts them (see shortKey).
func shortPath(p string) string {
	if len(p) <= maxKey {
		return p
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(p, '[')
		if i < 0 {
			break
		}
		j := strings.IndexByte(p[i:], ']')
		if j < 0 {
			break
		}
		b.WriteString(p[:i+1])
		b.WriteString(shortKey(p[i+1 : i+j]))
		p = p[i+j:]
	}
	b.WriteString(p)
	return b.String()
}

// checkElem checks one element of a field that dives.
func (c *core) checkElem(d *decoder, e reflect.Value, n *node, tag, path string) {
	if hasRule(tag, "dive") {
		c.checkDive(d, e, n, tag, path)
		return
	}
	if tag != "" && c.runVar(d, e.Interface(), tag, path) {
		return
	}
	e, n, ok := deref(e, n)
	if !ok || n.kind != kStruct || hasRule(tag, "structonly") {
		return
	}
	c.checkStruct(d, e, n, path)
}

// checkStruct runs the struct-level rules of e, a struct of type n at
// path, and walks into its fields.
func (c *core) checkStruct(d *decoder, e reflect.Value, n *node, path string) {
	x := e.Interface()
	if e.CanAddr() {
		x = e.Addr().Interface()
	}
	c.runStruct(d, x, path, true)
	c.walkInto(d, e, n, path)
}

// diveFields maps every Go field name of the struct types reachable from t
// to whether all fields of that name dive (and use no rule that reads
// another field, which only the validator's own walk can evaluate).
func diveFields(t reflect.Type) (map[string]bool, bool) {
	m := map[string]bool{}
	seen := map[reflect.Type]bool{}
	var visit func(reflect.Type)
	visit = func(t reflect.Type) {
		t = structtag.Innermost(t)
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("validate")
			dive := !sf.Anonymous && hasRule(tag, "dive") && !crossField(tag)
			if old, ok := m[sf.Name]; ok {
				dive = dive && old
			}
			m[sf.Name] = dive
			visit(sf.Type)
		}
	}
	visit(t)
	return m, slices.Contains(slices.Collect(maps.Values(m)), true)
}

// crossField reports whether a tag holds a rule that reads another field
// or the enclosing struct.
func crossField(tag string) bool {
	return anyAlternative(tag, func(alt string) bool {
		return strings.Contains(alt, "field") || strings.HasPrefix(alt, "required_") ||
			strings.HasPrefix(alt, "excluded_") || strings.HasPrefix(alt, "skip_unless")
	})
}

// within reports whether p is one of paths or inside one of them.
func within(p string, paths []string) bool {
	for _, f := range paths {
		if p == f || (strings.HasPrefix(p, f) && len(p) > len(f) && (p[len(f)] == '.' || p[len(f)] == '[')) {
			return true
		}
	}
	return false
}

// cleanNamespace turns "Args.filters[2].since" into "filters[2].since",
// dropping the root type's name and embedded structs.
func cleanNamespace(ns string) string {
	_, p, _ := strings.Cut(ns, ".")
	if strings.Contains(p, embedded) {
		p = strings.ReplaceAll(p, embedded+".", "")
	}
	return p
}

// violation turns one validator failure into a sentence.
func (c *core) violation(fe validator.FieldError, p string, zeroPresent bool) errs.Violation {
	shape := shapeOf(p)
	secret := c.isSecret(shape)
	cl := classOf(fe.Kind(), fe.Type())
	must, expected := phrase(fe.Tag(), fe.Param(), cl, c.bounds[shape], zeroPresent, c.cfg.rules)
	got, tail := "", ""
	if fe.Tag() != "required" || zeroPresent {
		got, tail = gotGo(fe.Value(), fe.Kind(), secret)
	}
	return errs.Violation{
		Parameter: p,
		Rule:      fe.Tag(),
		Expected:  expected,
		Got:       got,
		Message:   "parameter " + strconv.Quote(p) + " " + must + tail,
	}
}

// result builds the error for what d collected, or nil.
func (c *core) result(d *decoder) error {
	if d.internal != nil {
		return errs.Wrap(errs.Internal, d.internal, "")
	}
	if len(d.viols) == 0 {
		return nil
	}
	slices.SortStableFunc(d.viols, byParameter)
	return errs.New(errs.InvalidArgument, summary(d), errs.Violations(d.viols...), errs.Omitted(d.more))
}

// byParameter orders violations by parameter (see comparePaths), then by
// rule.
func byParameter(a, b errs.Violation) int {
	return cmp.Or(comparePaths(a.Parameter, b.Parameter), strings.Compare(a.Rule, b.Rule))
}

// summary is the message of d's error: the first violations, up to
// maxMessage bytes, and a count of the rest.
func summary(d *decoder) string {
	var b strings.Builder
	shown := 0
	for _, v := range d.viols {
		if shown > 0 {
			if b.Len()+len(v.Message) > maxMessage {
				break
			}
			b.WriteString("; ")
		}
		b.WriteString(v.Message)
		shown++
	}
	b.WriteString(moreProblems(len(d.viols)-shown+d.more, d.partial))
	return b.String()
}

// moreProblems ends a message that leaves rest problems out; partial says
// checking stopped before the end, so there may be more.
func moreProblems(rest int, partial bool) string {
	if rest == 0 {
		if partial {
			return "; checking stopped there, there may be more problems"
		}
		return ""
	}
	and := "; and "
	if partial {
		and = "; and at least "
	}
	if rest == 1 {
		return and + "1 more problem"
	}
	return and + strconv.Itoa(rest) + " more problems"
}

// comparePaths orders parameter paths as the model reads them: an index
// in brackets compares as a number, so "items[2]" comes before
// "items[10]"; everything else compares byte by byte.
func comparePaths(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if atIndexes(a, i, b, j) {
			ei, ej := digitsEnd(a, i), digitsEnd(b, j)
			if n := compareIndexes(a[i:ei], b[j:ej]); n != 0 {
				return n
			}
			i, j = ei, ej
			continue
		}
		if a[i] != b[j] {
			return int(a[i]) - int(b[j])
		}
		i++
		j++
	}
	return (len(a) - i) - (len(b) - j)
}

// atIndexes reports whether a[i:] and b[j:] both start an index in
// brackets.
func atIndexes(a string, i int, b string, j int) bool {
	return i > 0 && j > 0 && a[i-1] == '[' && b[j-1] == '[' && isDigit(a[i]) && isDigit(b[j])
}

// compareIndexes orders two indexes as numbers; "007" and "7" compare in
// any fixed order.
func compareIndexes(a, b string) int {
	// Without leading zeros, the longer number is the larger.
	na, nb := strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	return cmp.Or(len(na)-len(nb), strings.Compare(na, nb), strings.Compare(a, b))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}
