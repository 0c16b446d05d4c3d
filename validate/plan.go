package validate

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/structtag"
)

// kind is how a Go type is decoded from JSON.
type kind uint8

const (
	kString kind = iota
	kBool
	kInt
	kUint
	kFloat
	kStruct
	kSlice
	kArray
	kMap
	kPtr
	kAny       // interface{}: the JSON value as encoding/json would decode it
	kRaw       // json.RawMessage: the value's JSON text
	kTime      // time.Time: an RFC 3339 string
	kUnmarshal // implements json.Unmarshaler
	kText      // implements encoding.TextUnmarshaler: a string
)

// node is the decoding plan for one Go type, built once per Binder.
type node struct {
	kind   kind
	typ    reflect.Type
	elem   *node   // kPtr, kSlice, kArray, kMap
	fields []field // kStruct
	// byName finds a field by its JSON name.
	byName map[string]int
	// names are the JSON names in declaration order, for "did you mean"
	// and for the missing-arguments message.
	names []string
}

// field is one struct field as the model sees it.
type field struct {
	name     string
	goName   string // how the validator names it in a struct namespace
	index    []int
	node     *node
	required bool // the validate tag has a plain "required" rule
	// formatted is set when a rule of the tag, on the field or its
	// elements, parses or matches strings (email, url, uuid …): its
	// strings are capped at maxFormatBytes.
	formatted bool
	secret    bool
	desc      string
	tag       string // the validate tag
}

var (
	timeType        = reflect.TypeFor[time.Time]()
	rawType         = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textType        = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// planner builds nodes, sharing one node per type so recursive types work.
type planner struct {
	seen map[reflect.Type]*node
	// custom are the WithRule tags, whose cost is their author's.
	custom map[string]customRule
}

func (p *planner) plan(t reflect.Type) (*node, error) {
	if n, ok := p.seen[t]; ok {
		return n, nil
	}
	n := &node{typ: t}
	p.seen[t] = n
	if k, ok := specialKind(t); ok {
		n.kind = k
		return n, nil
	}
	if k, ok := scalarKind(t.Kind()); ok {
		n.kind = k
		return n, nil
	}
	if err := p.composite(n, t); err != nil {
		return nil, err
	}
	return n, nil
}

// specialKind is the kind of a type that decodes its own way: a time, a
// json.RawMessage, a json.Unmarshaler or an encoding.TextUnmarshaler.
func specialKind(t reflect.Type) (kind, bool) {
	switch {
	case t == timeType:
		return kTime, true
	case t == rawType:
		return kRaw, true
	case t.Kind() == reflect.Pointer:
		return 0, false // its element may be special, not the pointer
	case reflect.PointerTo(t).Implements(unmarshalerType):
		return kUnmarshal, true
	case reflect.PointerTo(t).Implements(textType):
		return kText, true
	}
	return 0, false
}

// scalarKind is the kind of a string, a boolean or a number.
func scalarKind(k reflect.Kind) (kind, bool) {
	sk, ok := scalarKinds[k]
	return sk, ok
}

var scalarKinds = map[reflect.Kind]kind{
	reflect.String: kString,
	reflect.Bool:   kBool,
	reflect.Int:    kInt, reflect.Int8: kInt, reflect.Int16: kInt, reflect.Int32: kInt, reflect.Int64: kInt,
	reflect.Uint: kUint, reflect.Uint8: kUint, reflect.Uint16: kUint, reflect.Uint32: kUint, reflect.Uint64: kUint, reflect.Uintptr: kUint,
	reflect.Float32: kFloat, reflect.Float64: kFloat,
}

// composite plans an interface, a pointer, a list, a map or a struct, and
// the types it holds.
func (p *planner) composite(n *node, t reflect.Type) (err error) {
	switch t.Kind() {
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return fmt.Errorf("interface type %s is not supported (only any)", t)
		}
		n.kind = kAny
		return nil
	case reflect.Struct:
		n.kind = kStruct
		n.byName = map[string]int{}
		return p.fields(n, t, nil)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("map key type %s is not supported (only string kinds)", t.Key())
		}
		n.kind = kMap
	case reflect.Pointer:
		n.kind = kPtr
	case reflect.Slice:
		n.kind = kSlice
	case reflect.Array:
		n.kind = kArray
	default:
		return fmt.Errorf("type %s cannot come from JSON", t)
	}
	n.elem, err = p.plan(t.Elem())
	return err
}

// fields adds t's fields to n, flattening embedded structs without a JSON
// name as encoding/json does.
func (p *planner) fields(n *node, t reflect.Type, index []int) error {
	for i := range t.NumField() {
		sf := t.Field(i)
		j := structtag.JSONOf(sf)
		if j.Skip {
			continue
		}
		if j.HasOption("string") {
			return fmt.Errorf("field %s.%s: the json \",string\" option is not supported", t, sf.Name)
		}
		idx := append(append([]int(nil), index...), i)
		if sf.Anonymous && !j.Named {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				return fmt.Errorf("field %s.%s: embedded pointers are not supported; embed the struct or name the field", t, sf.Name)
			}
			if ft.Kind() == reflect.Struct {
				if err := p.fields(n, ft, idx); err != nil {
					return err
				}
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if err := p.addField(n, t, sf, j.Name, idx); err != nil {
			return err
		}
	}
	return nil
}

// addField plans the field sf of t, at index idx, and adds it to n under
// its JSON name.
func (p *planner) addField(n *node, t reflect.Type, sf reflect.StructField, name string, idx []int) error {
	if _, dup := n.byName[name]; dup {
		return fmt.Errorf("field %s.%s: JSON name %q is used twice", t, sf.Name, name)
	}
	f, err := p.field(sf, name, idx)
	if err != nil {
		return fmt.Errorf("field %s.%s: %w", t, sf.Name, err)
	}
	n.byName[f.name] = len(n.fields)
	n.fields = append(n.fields, f)
	n.names = append(n.names, f.name)
	return nil
}

// field plans the exported struct field sf, named name in JSON, at index
// idx of the outermost struct.
func (p *planner) field(sf reflect.StructField, name string, idx []int) (field, error) {
	fn, err := p.plan(sf.Type)
	if err != nil {
		return field{}, err
	}
	vtag := sf.Tag.Get("validate")
	if err := checkParams(vtag); err != nil {
		return field{}, err
	}
	desc := sf.Tag.Get("description")
	if desc == "" {
		desc = sf.Tag.Get("jsonschema")
	}
	return field{
		name:      name,
		goName:    sf.Name,
		index:     idx,
		node:      fn,
		required:  hasRule(beforeDive(vtag), "required"),
		formatted: p.formats(vtag),
		secret:    structtag.Secret(sf),
		desc:      desc,
		tag:       vtag,
	}, nil
}

// rule is one validator rule: tag and parameter.
type rule struct {
	tag   string
	param string
}

// splitRules splits a validate tag into its rules, keeping "dive" and
// "keys"/"endkeys" as rules. Alternatives ("a|b") stay one rule.
func splitRules(tag string) []rule {
	if tag == "" {
		return nil
	}
	var out []rule
	for part := range strings.SplitSeq(tag, ",") {
		if part == "" {
			continue
		}
		t, p, _ := strings.Cut(part, "=")
		out = append(out, rule{tag: t, param: p})
	}
	return out
}

// unscanned are the built-in rules that compare, count or look up a
// string instead of matching it against a format: cheap, or bounded by
// their parameter. Any other built-in rule (email, url, uuid, base64,
// alphanum …) reads the whole string.
var unscanned = map[string]bool{
	"": true, "dive": true, "keys": true, "endkeys": true, "omitempty": true, "omitnil": true, "omitzero": true,
	"required": true, "isdefault": true, "len": true, "min": true, "max": true, "eq": true, "ne": true,
	"gt": true, "gte": true, "lt": true, "lte": true, "oneof": true, "unique": true,
	"structonly": true, "nostructlevel": true, "-": true,
	"startswith": true, "endswith": true, "startsnotwith": true, "endsnotwith": true,
	"contains": true, "containsany": true, "containsrune": true, "excludes": true, "excludesall": true, "excludesrune": true,
	"lowercase": true, "uppercase": true, "boolean": true,
}

// formats reports whether a validate tag holds a rule that reads whole
// strings (see unscanned); rules given with WithRule do not count.
func (p *planner) formats(tag string) bool {
	return anyAlternative(tag, func(alt string) bool {
		_, custom := p.custom[alt]
		return !custom && !unscanned[alt] && !strings.HasPrefix(alt, "required_") &&
			!strings.HasPrefix(alt, "excluded_") && !strings.HasSuffix(alt, "field")
	})
}

// anyAlternative reports whether an alternative of a rule of tag (each
// of "a|b") satisfies ok.
func anyAlternative(tag string, ok func(alt string) bool) bool {
	for _, r := range splitRules(tag) {
		for alt := range strings.SplitSeq(r.tag, "|") {
			if ok(alt) {
				return true
			}
		}
	}
	return false
}

// beforeDive returns the part of a tag that applies to the field itself.
func beforeDive(tag string) string {
	if i := indexRule(tag, "dive"); i >= 0 {
		return tag[:i]
	}
	return tag
}

// afterDive returns the part of a tag that applies to the elements, and
// whether there is a dive at all.
func afterDive(tag string) (string, bool) {
	i := indexRule(tag, "dive")
	if i < 0 {
		return "", false
	}
	rest := strings.TrimPrefix(tag[i+len("dive"):], ",")
	return rest, true
}

// indexRule returns the byte offset of the rule named r in tag, or -1.
func indexRule(tag, r string) int {
	off := 0
	for part := range strings.SplitSeq(tag, ",") {
		name, _, _ := strings.Cut(part, "=")
		if name == r {
			return off
		}
		off += len(part) + 1
	}
	return -1
}

func hasRule(tag, r string) bool { return indexRule(tag, r) >= 0 }

// sizeRules are the rules whose parameter must be a number or a
// duration, and whether they need one: gt, lt… without a parameter
// compare a time.Time with now.
var sizeRules = map[string]bool{
	"min": true, "max": true, "len": true,
	"gt": false, "gte": false, "lt": false, "lte": false,
}

// checkParams rejects size and comparison rules whose parameter is not a
// number or a duration. The validator would only find out by panicking on
// the first call that reaches the rule, which may be long after start-up.
func checkParams(tag string) error {
	for _, r := range splitRules(tag) {
		needs, sized := sizeRules[r.tag]
		if !sized || (r.param == "" && !needs) || numberOrDuration(r.param) {
			continue
		}
		return fmt.Errorf("invalid validate tag: rule %s=%q needs a number", r.tag, r.param)
	}
	return nil
}

func numberOrDuration(p string) bool {
	if _, err := strconv.ParseFloat(p, 64); err == nil {
		return true
	}
	_, err := time.ParseDuration(p)
	return err == nil
}
