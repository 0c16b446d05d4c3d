package validate

import (
	"encoding/json"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/mcpwrap/mcpwrap/internal/jsonnum"
)

// schemaOf derives the JSON Schema of one value from its plan and the
// validate tag that applies to it (the field's tag, or what follows a
// "dive" for elements). nullable adds null to the type (an optional
// pointer). visiting breaks recursive types: a struct met again inside
// itself is described as a plain object.
func (c *core) schemaOf(n *node, tag string, nullable bool) map[string]any {
	return c.schemaVisit(n, tag, nullable, map[*node]bool{})
}

func (c *core) schemaVisit(n *node, tag string, nullable bool, visiting map[*node]bool) map[string]any {
	s := map[string]any{}
	var cl class
	switch n.kind {
	case kPtr:
		s = c.schemaVisit(n.elem, tag, false, visiting)
		if t, ok := s["type"].(string); ok && nullable {
			s["type"] = []string{t, "null"}
		}
		return s
	case kStruct:
		c.objectSchema(s, n, visiting)
		return s
	case kSlice, kArray:
		cl = cList
		c.listSchema(s, n, tag, visiting)
	case kMap:
		cl = cMap
		c.mapSchema(s, n, tag, visiting)
	default:
		var ok bool
		if cl, ok = scalarSchema(s, n); !ok {
			return s
		}
	}
	own := splitRules(beforeDive(tag))
	omitempty := slices.ContainsFunc(own, func(r rule) bool { return r.tag == "omitempty" })
	applyRules(s, own, cl, omitempty)
	return s
}

// scalarSchema describes a string, a boolean, a number or a time and
// returns its class; ok is false for a value that may be any JSON value
// (kAny, kRaw, kUnmarshal), which s leaves open.
func scalarSchema(s map[string]any, n *node) (cl class, ok bool) {
	switch n.kind {
	case kString, kText:
		s["type"] = "string"
		return cString, true
	case kBool:
		s["type"] = "boolean"
		return cBool, true
	case kInt, kUint:
		s["type"] = "integer"
		if lo, hi, ok := intRange(n.typ); ok {
			s["minimum"] = lo
			if hi != "" {
				s["maximum"] = hi
			}
		}
		return cNumber, true
	case kFloat:
		s["type"] = "number"
		return cNumber, true
	case kTime:
		s["type"] = "string"
		s["format"] = "date-time"
		return cTime, true
	}
	return cOther, false
}

// listSchema describes a slice or an array: its items, and an array's
// length.
func (c *core) listSchema(s map[string]any, n *node, tag string, visiting map[*node]bool) {
	s["type"] = "array"
	rest, _ := afterDive(tag)
	s["items"] = c.elemSchema(n.elem, rest, visiting)
	if n.kind == kArray {
		s["minItems"], s["maxItems"] = n.typ.Len(), n.typ.Len()
	}
}

// elemSchema describes an element of a list or a value of a map, whose
// rules are tag (what follows "dive"): a pointer not required may be null.
func (c *core) elemSchema(en *node, tag string, visiting map[*node]bool) map[string]any {
	return c.schemaVisit(en, tag, en.kind == kPtr && !hasRule(beforeDive(tag), "required"), visiting)
}

// objectSchema describes a struct: its properties, the required ones, and
// whether others are allowed. A struct met again inside itself is a plain
// object.
func (c *core) objectSchema(s map[string]any, n *node, visiting map[*node]bool) {
	s["type"] = "object"
	if visiting[n] {
		return
	}
	visiting[n] = true
	props := make(map[string]any, len(n.fields))
	var req []string
	for _, f := range n.fields {
		props[f.name] = c.fieldSchema(&f, visiting)
		if f.required {
			req = append(req, f.name)
		}
	}
	delete(visiting, n)
	s["properties"] = props
	if len(req) > 0 {
		s["required"] = req
	}
	if !c.cfg.allowUnknown {
		s["additionalProperties"] = false
	}
}

// fieldSchema is the schema of a struct field's property: an optional
// pointer may be null, and the field's description and secrecy are said.
func (c *core) fieldSchema(f *field, visiting map[*node]bool) map[string]any {
	nullable := f.node.kind == kPtr && !f.required
	fs := c.schemaVisit(f.node, f.tag, nullable, visiting)
	if f.desc != "" {
		fs["description"] = f.desc
	}
	if f.secret {
		fs["writeOnly"] = true
	}
	return fs
}

// mapSchema describes a map: its keys' rules as propertyNames, its values
// as additionalProperties.
func (c *core) mapSchema(s map[string]any, n *node, tag string, visiting map[*node]bool) {
	s["type"] = "object"
	rest, _ := afterDive(tag)
	if keys := keysRules(rest); keys != "" {
		ks := map[string]any{"type": "string"}
		applyRules(ks, splitRules(keys), cString, false)
		delete(ks, "type")
		s["propertyNames"] = ks
	}
	s["additionalProperties"] = c.elemSchema(n.elem, stripKeys(rest), visiting)
}

// intRange is the range of a sized integer type, as JSON numbers; ok is
// false for 64-bit signed types, whose range every JSON integer a model
// would send already fits; an unsized unsigned type has only its lower
// bound.
func intRange(t reflect.Type) (lo, hi json.Number, ok bool) {
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return "", "", false
	case reflect.Uint, reflect.Uint64, reflect.Uintptr:
		return "0", "", true
	}
	l, h, ok := jsonnum.Range(t.Kind())
	return json.Number(l), json.Number(h), ok
}

// applyRules adds the keywords for a value's own rules to s. With
// omitempty, the zero value is accepted whatever the rules say, so the
// keywords go into {"anyOf": [zero, rules]}.
func applyRules(s map[string]any, rules []rule, cl class, omitempty bool) {
	k := map[string]any{}
	var all []any
	for _, r := range rules {
		all = ruleKeyword(k, all, r, cl)
	}
	if len(all) == 1 {
		all = foldOne(k, all)
	}
	if len(all) > 0 {
		k["allOf"] = all
	}
	switch {
	case len(k) == 0:
	case omitempty:
		s["anyOf"] = []any{zeroSchema(cl), k}
	default:
		mergeKeywords(s, k)
	}
}

// foldOne moves the keywords of the one subschema in all that k does not
// have yet into k; all is then nil, unless k had them all.
func foldOne(k map[string]any, all []any) []any {
	for kw, v := range all[0].(map[string]any) {
		if _, taken := k[kw]; !taken {
			k[kw] = v
			all = nil
		}
	}
	return all
}

// ruleKeyword adds the keywords rule r sets on a value of class cl to k, or
// to all those that must hold at once; it returns all.
func ruleKeyword(k map[string]any, all []any, r rule, cl class) []any {
	switch cl {
	case cString:
		lengthKeyword(k, r, cl)
		return stringKeyword(k, all, r)
	case cList:
		lengthKeyword(k, r, cl)
		if r.tag == "unique" {
			k["uniqueItems"] = true
		}
	case cMap:
		lengthKeyword(k, r, cl)
	case cNumber:
		numberKeyword(k, r)
	}
	return all
}

// mergeKeywords adds the keywords k to s; of two numeric limits, the
// stricter stays.
func mergeKeywords(s, k map[string]any) {
	for kw, v := range k {
		if cur, ok := s[kw]; ok && (kw == "minimum" || kw == "maximum") {
			s[kw] = tighterNumber(cur, v, kw == "minimum")
			continue
		}
		s[kw] = v
	}
}

// lengthKeys are the JSON Schema keywords bounding a length, per class.
var lengthKeys = map[class][2]string{
	cString: {"minLength", "maxLength"},
	cList:   {"minItems", "maxItems"},
	cMap:    {"minProperties", "maxProperties"},
}

// lengthBounds says, per size rule, which bounds it sets and what it adds
// to its parameter: "gt" 3 is a lower bound of 4.
var lengthBounds = map[string]struct {
	lower, upper bool
	add          int
}{
	"min": {lower: true}, "gte": {lower: true},
	"max": {upper: true}, "lte": {upper: true},
	"len": {lower: true, upper: true},
	"gt":  {lower: true, add: 1},
	"lt":  {upper: true, add: -1},
}

// lengthKeyword adds the length bound a size rule sets on a string, a list
// or a map; a bound below zero sets nothing.
func lengthKeyword(k map[string]any, r rule, cl class) {
	b, ok := lengthBounds[r.tag]
	n, err := strconv.Atoi(r.param)
	if !ok || err != nil || n+b.add < 0 {
		return
	}
	lk := lengthKeys[cl]
	if b.lower {
		tighten(k, lk[0], n+b.add, true)
	}
	if b.upper {
		tighten(k, lk[1], n+b.add, false)
	}
}

// schemaNumber is a rule parameter as a JSON number, if it is one.
func schemaNumber(p string) (json.Number, bool) {
	if _, err := strconv.ParseFloat(p, 64); err != nil {
		return "", false
	}
	return json.Number(p), true
}

// numberKeywords are the keywords a comparison rule sets on a number.
var numberKeywords = map[string]string{
	"min": "minimum", "gte": "minimum", "max": "maximum", "lte": "maximum",
	"gt": "exclusiveMinimum", "lt": "exclusiveMaximum", "eq": "const", "len": "const",
}

// numberKeyword adds the keyword a comparison or oneof rule sets on a
// number.
func numberKeyword(k map[string]any, r rule) {
	if r.tag == "oneof" {
		k["enum"] = numberEnum(r.param)
		return
	}
	n, ok := schemaNumber(r.param)
	switch kw := numberKeywords[r.tag]; {
	case !ok:
	case kw != "":
		k[kw] = n
	case r.tag == "ne":
		k["not"] = map[string]any{"const": n}
	}
}

// numberEnum is the enum of a oneof rule on a number: the values of param
// that are numbers.
func numberEnum(param string) []any {
	var enum []any
	for _, v := range oneofValues(param) {
		if n, ok := schemaNumber(v); ok {
			enum = append(enum, n)
		}
	}
	return enum
}

// stringFormats are the string rules that map to a JSON Schema format.
var stringFormats = map[string]string{
	"email": "email", "url": "uri", "uri": "uri", "http_url": "uri",
	"uuid": "uuid", "uuid3": "uuid", "uuid4": "uuid", "uuid5": "uuid",
	"uuid_rfc4122": "uuid", "uuid3_rfc4122": "uuid", "uuid4_rfc4122": "uuid", "uuid5_rfc4122": "uuid",
	"hostname": "hostname", "hostname_rfc1123": "hostname", "fqdn": "hostname",
	"ipv4": "ipv4", "ip4_addr": "ipv4", "ipv6": "ipv6", "ip6_addr": "ipv6",
}

// stringPatterns are the string rules that map to a fixed pattern.
var stringPatterns = map[string]string{
	"alphanum": "^[a-zA-Z0-9]+$",
	"alpha":    "^[a-zA-Z]+$",
	"numeric":  `^[-+]?[0-9]+(?:\.[0-9]+)?$`,
	"number":   "^[0-9]+$",
	"http_url": "^[hH][tT][tT][pP][sS]?://",
}

// dateFormats are the datetime layouts that map to a JSON Schema format.
var dateFormats = map[string]string{time.RFC3339: "date-time", time.DateOnly: "date"}

// stringKeyword adds the keyword a rule sets on a string to k, or appends
// it to all when several may apply at once (patterns), and returns all.
func stringKeyword(k map[string]any, all []any, r rule) []any {
	if f, ok := stringFormats[r.tag]; ok {
		k["format"] = f
	}
	if sub, ok := patternSchema(r); ok {
		return append(all, sub)
	}
	switch r.tag {
	case "eq":
		k["const"] = r.param
	case "ne":
		k["not"] = map[string]any{"const": r.param}
	case "oneof":
		var enum []any
		for _, v := range oneofValues(r.param) {
			enum = append(enum, v)
		}
		k["enum"] = enum
	case "datetime":
		if f, ok := dateFormats[r.param]; ok {
			k["format"] = f
		}
	}
	return all
}

// patternSchema is the schema of a rule about the string's text: a fixed
// pattern, an IP address of either version, or a substring (startswith,
// endswith, contains, excludes).
func patternSchema(r rule) (map[string]any, bool) {
	if pat, ok := stringPatterns[r.tag]; ok {
		return map[string]any{"pattern": pat}, true
	}
	switch r.tag {
	case "ip", "ip_addr":
		return map[string]any{"anyOf": []any{map[string]any{"format": "ipv4"}, map[string]any{"format": "ipv6"}}}, true
	case "startswith":
		return map[string]any{"pattern": "^" + regexp.QuoteMeta(r.param)}, true
	case "endswith":
		return map[string]any{"pattern": regexp.QuoteMeta(r.param) + "$"}, true
	case "contains":
		return map[string]any{"pattern": regexp.QuoteMeta(r.param)}, true
	case "excludes":
		return map[string]any{"not": map[string]any{"pattern": regexp.QuoteMeta(r.param)}}, true
	}
	return nil, false
}

// tighten sets a length keyword, keeping the stricter of two limits.
func tighten(k map[string]any, kw string, n int, lower bool) {
	if cur, ok := k[kw].(int); ok && ((lower && cur > n) || (!lower && cur < n)) {
		return
	}
	k[kw] = n
}

// tighterNumber returns the stricter of two numeric limits.
func tighterNumber(a, b any, lower bool) any {
	fa, ea := strconv.ParseFloat(string(a.(json.Number)), 64)
	fb, eb := strconv.ParseFloat(string(b.(json.Number)), 64)
	if ea != nil || eb != nil {
		return b
	}
	if (lower && math.Max(fa, fb) == fa) || (!lower && math.Min(fa, fb) == fa) {
		return a
	}
	return b
}

// zeroSchema accepts exactly the zero value of a class, which omitempty
// lets through whatever the other rules say.
func zeroSchema(cl class) map[string]any {
	if z, ok := zeroKeywords[cl]; ok {
		return map[string]any{z.keyword: z.value}
	}
	return map[string]any{}
}

// zeroKeywords are the keywords that accept only a class's zero value.
var zeroKeywords = map[class]struct {
	keyword string
	value   any
}{
	cString: {"const", ""},
	cNumber: {"const", 0},
	cBool:   {"const", false},
	cList:   {"maxItems", 0},
	cMap:    {"maxProperties", 0},
}
