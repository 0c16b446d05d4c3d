package validate

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/mcpwrap/mcpwrap/errs"
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
	c.collect(d, prefix, func() error {
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
	c.collect(d, path, func() error { return c.v.Var(x, tag) })
	return len(d.viols)+d.more > n || d.internal != nil
}

// collect runs the validator and adds its violations, except those about
// values that could not be decoded.
func (c *core) collect(d *decoder, prefix string, run func() error) {
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("validator panicked: %v", r)
			}
		}()
		err = run()
	}()
	if err == nil {
		return
	}
	var ves validator.ValidationErrors
	if !errors.As(err, &ves) {
		d.internal = err
		return
	}
	for _, fe := range ves {
		p := shortPath(cleanNamespace(fe.Namespace()))
		switch {
		case prefix == "":
		case p == "":
			p = prefix
		default:
			p = prefix + "." + p
		}
		if under(p, d.failed) {
			continue
		}
		if d.full() {
			d.more++
			continue
		}
		d.viols = append(d.viols, c.violation(fe, p, slices.Contains(d.zeroPresent, p)))
	}
}

// skipDive is the validator's filter in a large call: it skips the fields
// that dive, which walkDives checks.
func (c *core) skipDive(ns []byte) bool {
	name := ns[bytesLastDot(ns)+1:]
	return c.diveOnly[string(name)]
}

func bytesLastDot(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '.' {
			return i
		}
	}
	return -1
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
		if !hasRule(f.tag, "structonly") && !hasRule(f.tag, "nostructlevel") && f.tag != "-" {
			c.walkInto(d, fv, f.node, fp)
		}
	}
}

// walkInto is walkDives through pointers, for a value that may not be a
// struct.
func (c *core) walkInto(d *decoder, v reflect.Value, n *node, path string) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v, n = v.Elem(), n.elem
	}
	if n.kind == kStruct {
		c.walkDives(d, v, n, path)
	}
}

// checkDive checks a field that dives, as the validator would: its own
// rules, then, if they pass, every element, stopping once the list of
// violations is full.
func (c *core) checkDive(d *decoder, v reflect.Value, n *node, tag, path string) {
	if own := strings.TrimSuffix(beforeDive(tag), ","); own != "" && c.runVar(d, v.Interface(), own, path) {
		return
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v, n = v.Elem(), n.elem
	}
	rest, _ := afterDive(tag)
	switch v.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if !d.recount() {
				return
			}
			c.checkElem(d, v.Index(i), n.elem, rest, path+"["+strconv.Itoa(i)+"]")
		}
	case reflect.Map:
		keys, vals := keysRules(rest), stripKeys(rest)
		for it := v.MapRange(); it.Next(); {
			if !d.recount() {
				return
			}
			kp := path + "[" + shortKey(it.Key().String()) + "]"
			if keys != "" {
				c.runVar(d, it.Key().Interface(), keys, kp)
			}
			c.checkElem(d, it.Value(), n.elem, vals, kp)
		}
	}
}

// recount reports whether checkDive may look at one more element: always
// while the list of violations has room, then maxRecount more times.
func (d *decoder) recount() bool {
	if !d.full() {
		return true
	}
	if d.rechecked >= maxRecount {
		d.partial = true
		return false
	}
	d.rechecked++
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
	for e.Kind() == reflect.Pointer {
		if e.IsNil() {
			return
		}
		e, n = e.Elem(), n.elem
	}
	if n.kind != kStruct || hasRule(tag, "structonly") {
		return
	}
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
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
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
	any := false
	for _, dive := range m {
		any = any || dive
	}
	return m, any
}

// crossField reports whether a tag holds a rule that reads another field
// or the enclosing struct.
func crossField(tag string) bool {
	for _, r := range splitRules(tag) {
		for alt := range strings.SplitSeq(r.tag, "|") {
			if strings.Contains(alt, "field") || strings.HasPrefix(alt, "required_") ||
				strings.HasPrefix(alt, "excluded_") || strings.HasPrefix(alt, "skip_unless") {
				return true
			}
		}
	}
	return false
}

// under reports whether p is one of paths or inside one of them.
func under(p string, paths []string) bool {
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
	var custom map[string]string
	if len(c.cfg.rules) > 0 {
		custom = make(map[string]string, len(c.cfg.rules))
		for k, r := range c.cfg.rules {
			custom[k] = r.expected
		}
	}
	must, expected := phrase(fe.Tag(), fe.Param(), cl, c.bounds[shape], zeroPresent, custom)
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

// result builds the error for what d collected, or nil. Its message lists
// the first violations, up to maxMessage bytes, and counts the rest.
func (c *core) result(d *decoder) error {
	if d.internal != nil {
		return errs.Wrap(errs.Internal, d.internal, "")
	}
	if len(d.viols) == 0 {
		return nil
	}
	slices.SortStableFunc(d.viols, func(a, b errs.Violation) int {
		if n := strings.Compare(a.Parameter, b.Parameter); n != 0 {
			return n
		}
		return strings.Compare(a.Rule, b.Rule)
	})
	var b strings.Builder
	shown := 0
	for _, v := range d.viols {
		if shown > 0 && b.Len()+len(v.Message) > maxMessage {
			break
		}
		if shown > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.Message)
		shown++
	}
	rest := len(d.viols) - shown + d.more
	problems := " more problems"
	if rest == 1 {
		problems = " more problem"
	}
	switch {
	case rest > 0 && d.partial:
		b.WriteString("; and at least " + strconv.Itoa(rest) + problems)
	case rest > 0:
		b.WriteString("; and " + strconv.Itoa(rest) + problems)
	case d.partial:
		b.WriteString("; checking stopped there, there may be more problems")
	}
	return errs.New(errs.InvalidArgument, b.String(), errs.Violations(d.viols...), errs.Omitted(d.more))
}
