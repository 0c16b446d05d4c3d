package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/mcpwrap/mcpwrap/errs"
	"github.com/mcpwrap/mcpwrap/internal/call"
	"github.com/mcpwrap/mcpwrap/internal/structtag"
)

// Binder decodes and validates the arguments of one tool into a T. Build it
// once with New, at start-up; a Binder is immutable and safe for concurrent
// use.
type Binder[T any] struct {
	c *core
}

// core is the type-independent part of a Binder.
type core struct {
	cfg    config
	root   *node
	v      *validator.Validate
	schema json.RawMessage
	// bounds holds, per shape ("filters[*].since"), the lower and upper
	// limits set by the field's rules, to say "between 1 and 14".
	bounds map[string]bounds
	// secrets are the shapes of the fields tagged mcpwrap:"secret", sorted.
	secrets []string
	// diveOnly says, by Go field name, whether every struct field of that
	// name dives into its elements; those fields are checked by checkDive
	// when a call is large (see check).
	diveOnly map[string]bool
	hasDive  bool
	// dives says, per plan node, whether a value of it may hold a field
	// that dives.
	dives map[*node]bool
}

// embedded names an embedded struct in validator namespaces so that it can
// be cut out: its fields are parameters of the enclosing object.
const embedded = "\x00"

// New builds the Binder of T, which must be a struct. It returns an error
// at start-up for anything that would otherwise fail per call: an unknown
// or malformed validate tag, a field type JSON cannot fill, a JSON name used
// twice, or a field whose rules reject its own zero value while it is
// neither required nor omitempty (leaving it out would fail although the
// schema calls it optional: add "required" or "omitempty").
func New[T any](opts ...Option) (*Binder[T], error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("validate: %s is not a struct; tool arguments are a JSON object", t)
	}
	var cfg config
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	c, err := newCore(t, cfg)
	if err != nil {
		return nil, err
	}
	return &Binder[T]{c: c}, nil
}

// newCore plans the struct type t and builds its validator, its indexes
// and its schema: all of New that does not depend on T.
func newCore(t reflect.Type, cfg config) (*core, error) {
	p := planner{seen: map[reflect.Type]*node{}, custom: cfg.rules}
	root, err := p.plan(t)
	if err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	}
	v, err := newValidator(cfg.rules)
	if err != nil {
		return nil, err
	}
	c := &core{cfg: cfg, root: root, v: v, bounds: map[string]bounds{}}
	c.diveOnly, c.hasDive = diveFields(t)
	c.indexDives(p.seen)
	c.index(root, "", "", map[*node]bool{})
	slices.Sort(c.secrets)
	for _, n := range p.seen {
		if err := c.checkZero(n); err != nil {
			return nil, fmt.Errorf("validate: %w", err)
		}
	}
	if c.schema, err = json.Marshal(c.schemaOf(root, "", false)); err != nil {
		return nil, fmt.Errorf("validate: schema: %w", err)
	}
	return c, nil
}

// MustNew is New for package-level variables and init code: it panics on
// the errors New returns, which are programming errors in T's tags.
func MustNew[T any](opts ...Option) *Binder[T] {
	b, err := New[T](opts...)
	if err != nil {
		panic(err)
	}
	return b
}

// newValidator returns a validator that names fields by their JSON names
// (an embedded struct by the name cleanNamespace cuts) and knows the
// custom rules.
func newValidator(rules map[string]customRule) (*validator.Validate, error) {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(sf reflect.StructField) string {
		switch j := structtag.JSONOf(sf); {
		case j.Named:
			return j.Name
		case sf.Anonymous && !j.Skip:
			return embedded
		}
		return sf.Name
	})
	for tag, r := range rules {
		if err := v.RegisterValidation(tag, r.fn); err != nil {
			return nil, fmt.Errorf("validate: rule %q: %w", tag, err)
		}
	}
	return v, nil
}

// checkZero validates the zero value of a struct type, which parses every
// tag (so a bad tag fails now, not on the first call) and finds optional
// fields whose rules reject being left out. Other kinds pass.
func (c *core) checkZero(n *node) (err error) {
	if n.kind != kStruct {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: invalid validate tag: %v", n.typ, r)
		}
	}()
	verr := c.v.Struct(reflect.New(n.typ).Interface())
	var ves validator.ValidationErrors
	if !errors.As(verr, &ves) {
		return verr
	}
	for _, fe := range ves {
		i, ok := n.byName[topField(fe.Namespace())]
		if !ok {
			continue
		}
		f := n.fields[i]
		if mayBeLeftOut(beforeDive(f.tag)) {
			continue
		}
		return fmt.Errorf("%s field %q: leaving it out fails its rule %q although the schema calls it optional; add \"required\" or \"omitempty\" to its validate tag",
			n.typ, f.name, fe.Tag())
	}
	return nil
}

// topField is the JSON name of the top-level field a validator namespace
// is in.
func topField(namespace string) string {
	first, _, _ := strings.Cut(cleanNamespace(namespace), ".")
	first, _, _ = strings.Cut(first, "[")
	return first
}

// mayBeLeftOut reports whether a field's own rules let it be left out
// or make it required, either of which the schema says.
func mayBeLeftOut(own string) bool {
	return hasRule(own, "omitempty") || hasRule(own, "omitnil") || hasRule(own, "omitzero") || strings.Contains(own, "required")
}

// index records the bounds and secret shapes of every field under n.
func (c *core) index(n *node, shape, tag string, visiting map[*node]bool) {
	switch n.kind {
	case kPtr:
		c.index(n.elem, shape, tag, visiting)
	case kSlice, kArray, kMap:
		rest, ok := afterDive(tag)
		if !ok {
			rest = ""
		}
		rest = stripKeys(rest)
		es := shape + "[*]"
		c.bounds[es] = boundsOf(splitRules(beforeDive(rest)))
		c.index(n.elem, es, rest, visiting)
	case kStruct:
		if !visiting[n] {
			visiting[n] = true
			c.indexFields(n, shape, visiting)
			delete(visiting, n)
		}
	}
}

// indexFields is index for the fields of the struct n at shape.
func (c *core) indexFields(n *node, shape string, visiting map[*node]bool) {
	for _, f := range n.fields {
		fs := joinPath(shape, f.name)
		c.bounds[fs] = boundsOf(splitRules(beforeDive(f.tag)))
		if f.secret {
			c.secrets = append(c.secrets, fs)
		}
		c.index(f.node, fs, f.tag, visiting)
	}
}

// stripKeys removes a map's "keys,…,endkeys" block from a tag.
func stripKeys(tag string) string {
	i := indexRule(tag, "keys")
	if i < 0 {
		return tag
	}
	j := indexRule(tag, "endkeys")
	if j < 0 {
		return tag[:i]
	}
	return strings.TrimPrefix(tag[:i]+tag[j+len("endkeys"):], ",")
}

// keysRules returns the rules of a map's "keys,…,endkeys" block.
func keysRules(tag string) string {
	i := indexRule(tag, "keys")
	if i < 0 {
		return ""
	}
	rest := tag[i+len("keys"):]
	if j := indexRule(strings.TrimPrefix(rest, ","), "endkeys"); j >= 0 {
		return strings.TrimSuffix(strings.TrimPrefix(rest, ",")[:j], ",")
	}
	return strings.TrimPrefix(rest, ",")
}

func joinPath(base, name string) string {
	if base == "" {
		return name
	}
	return base + "." + name
}

// Bind decodes a call's arguments into a T and validates it. args are the
// arguments as JSON text ([]byte or json.RawMessage), as decoded from JSON
// (a map[string]any), or a prompt's (a map[string]string: prompt
// arguments travel as strings, so T's fields should be strings). On
// failure it returns the zero T and an *errs.Error with code
// InvalidArgument whose message names the problems and whose violations
// list them, sorted by parameter path then rule: at most
// 20 of them, the rest counted (see the package doc). A
// wrapped prompt sends that error as JSON-RPC -32602.
func (b *Binder[T]) Bind(args any) (T, error) {
	if m, ok := args.(map[string]string); ok {
		args = promptArgs(m)
	}
	var t T
	if err := b.c.bind(reflect.ValueOf(&t).Elem(), args, nil); err != nil {
		var zero T
		return zero, err
	}
	return t, nil
}

// Schema returns the JSON Schema of T's arguments, derived from the same
// fields and tags that Bind enforces. The caller must not modify it.
func (b *Binder[T]) Schema() json.RawMessage { return b.c.schema }

// SecretPaths returns the paths of the parameters tagged mcpwrap:"secret", in
// the form "auth.token" or "headers[*]" ("[*]" stands for any index or map
// key). Everything under a secret path is secret too. See IsSecret.
func (b *Binder[T]) SecretPaths() []string { return slices.Clone(b.c.secrets) }

// IsSecret reports whether the value at a concrete parameter path, such as
// "accounts[2].password" (the form of errs.Violation.Parameter), is secret.
func (b *Binder[T]) IsSecret(path string) bool { return b.c.isSecret(shapeOf(path)) }

func (c *core) isSecret(shape string) bool { return within(shape, c.secrets) }

// shapeOf replaces every index or key in a path by "*": "a[2].b[x]" becomes
// "a[*].b[*]".
func shapeOf(path string) string {
	if !strings.Contains(path, "[") {
		return path
	}
	var b strings.Builder
	depth := 0
	for _, r := range path {
		switch {
		case r == '[':
			if depth == 0 {
				b.WriteString("[*")
			}
			depth++
		case r == ']' && depth > 0:
			depth--
			if depth == 0 {
				b.WriteByte(']')
			}
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// bind is Bind without generics: dst is the T to fill.
func (c *core) bind(dst reflect.Value, args any, raw []byte) error {
	d := decoder{c: c}
	m, raw, err := d.arguments(args, raw)
	if err != nil {
		return err
	}
	d.object(m, dst, c.root, false)
	if d.foreign || (d.imprecise && !d.exact && len(raw) > 0) {
		c.again(&d, dst, args, raw)
	}
	c.check(&d, dst)
	return c.result(&d)
}

// arguments returns the call's arguments as an object, and their JSON text
// when it is at hand: args as the SDK decoded them, or args or raw as JSON
// text (then decoded here, so d.exact). Arguments built in process with Go
// types go through JSON once.
func (d *decoder) arguments(args any, raw []byte) (map[string]any, []byte, error) {
	c := d.c
	src := args
	switch a := args.(type) {
	case json.RawMessage:
		src, raw = nil, a
	case []byte:
		src, raw = nil, a
	}
	if src == nil {
		var err error
		if src, d.exact, err = c.decodeText(raw); err != nil {
			return nil, raw, err
		}
	}
	m, ok := src.(map[string]any)
	if !ok && !plainJSON(src) {
		v, err := reencode(src)
		if err != nil {
			return nil, raw, c.rootError("type", "the arguments cannot be read as JSON; expected "+c.objectDesc())
		}
		src, d.exact = v, true
		m, ok = src.(map[string]any)
	}
	if !ok {
		return nil, raw, c.rootError("type", call.ArgumentsNotObject(describeJSON(src, true))+"; expected "+c.objectDesc())
	}
	return m, raw, nil
}

// decodeText decodes arguments sent as JSON text; none at all is an empty
// object, unless a parameter is required. exact says the text was decoded.
func (c *core) decodeText(raw []byte) (v any, exact bool, err error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		if c.hasRequired() {
			return nil, false, c.rootError("required", "the call has no arguments; expected "+c.objectDesc())
		}
		return map[string]any{}, false, nil
	}
	v, err = decodeJSON(raw)
	if err != nil {
		return nil, false, c.rootError("json", "the arguments are not valid JSON; expected "+c.objectDesc())
	}
	if v == nil && !c.hasRequired() {
		v = map[string]any{}
	}
	return v, true, nil
}

// again decodes the arguments a second time, exactly, when the first pass
// met Go values that JSON would change (d.foreign) or integers too large
// for the float64 the SDK decoded them into (d.imprecise).
func (c *core) again(d *decoder, dst reflect.Value, args any, raw []byte) {
	var v any
	var err error
	if d.foreign {
		v, err = reencode(args)
	} else {
		v, err = decodeJSON(raw)
	}
	if m, ok := v.(map[string]any); err == nil && ok {
		*d = decoder{c: c, exact: true}
		dst.SetZero()
		d.object(m, dst, c.root, false)
	}
}

func reencode(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeJSON(data)
}

func (c *core) rootError(rule, msg string) error {
	v := errs.Violation{Parameter: "", Rule: rule, Expected: c.objectDesc(), Message: msg}
	return errs.New(errs.InvalidArgument, msg, errs.Violations(v))
}

func (c *core) hasRequired() bool {
	return slices.ContainsFunc(c.root.fields, func(f field) bool { return f.required })
}

// objectDesc describes the arguments object: `an object with "city"
// (required), "days"`.
func (c *core) objectDesc() string {
	if len(c.root.fields) == 0 {
		return "an empty object"
	}
	var b strings.Builder
	b.WriteString("an object with ")
	for i, f := range c.root.fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(f.name))
		if f.required {
			b.WriteString(" (required)")
		}
	}
	return b.String()
}
